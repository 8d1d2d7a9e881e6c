package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"coreportal/internal/audit"
	"coreportal/internal/config"
	"coreportal/internal/fault"
	"coreportal/internal/servicetokens"
	"coreportal/internal/store"
	"coreportal/internal/users"
)

// withUsers opens the database and the bus of cfg and runs fn with the users
// service; changes are recorded in the audit log with the actor "cli".
func withUsers(ctx context.Context, cfg config.Config, fn func(*users.Service) error) error {
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := openBus(cfg)
	if err != nil {
		return fmt.Errorf("CORE_BUS_URL: %w", err)
	}
	defer b.Close()
	useCLIAudit(db)
	u := users.NewService(db, b)
	u.SetServiceAccounts(servicetokens.New(db, u).IsAccount)
	return fn(u)
}

// cliActor is the actor the audit log names for changes made through the
// command line.
var cliActor = audit.Actor{Login: "cli"}

// useCLIAudit records the audit entries of a command in db, by cliActor.
func useCLIAudit(db *store.DB) {
	audit.Use(audit.New(db, func(context.Context) audit.Actor { return cliActor }))
}

// readPassword returns the flag's value, else the first line of stdin.
func readPassword(flagValue string, stdin io.Reader) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", usageErr("--password is required (or give it on stdin)")
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func requireLogin(login string) error {
	if login == "" {
		return usageErr("--login is required")
	}
	return nil
}

func userCreateSetup(fs *flag.FlagSet) runFunc {
	login := fs.String("login", "", "login (required)")
	password := fs.String("password", "", "password (read from stdin when omitted)")
	display := fs.String("display-name", "", "display name")
	email := fs.String("email", "", "e-mail address")
	admin := fs.Bool("admin", false, "give the administrator role")
	return func(ctx context.Context, cfg config.Config) error {
		if err := requireLogin(*login); err != nil {
			return err
		}
		pw, err := readPassword(*password, os.Stdin)
		if err != nil {
			return err
		}
		return withUsers(ctx, cfg, func(svc *users.Service) error {
			u, err := svc.Create(ctx, users.NewUser{Login: *login, Password: pw, DisplayName: *display, Email: *email, IsCoreAdmin: *admin})
			if err != nil {
				return err
			}
			fmt.Printf("created user %s (%s)\n", u.Login, u.ID)
			return nil
		})
	}
}

func userSetPasswordSetup(fs *flag.FlagSet) runFunc {
	login := fs.String("login", "", "login (required)")
	password := fs.String("password", "", "password (read from stdin when omitted)")
	return func(ctx context.Context, cfg config.Config) error {
		if err := requireLogin(*login); err != nil {
			return err
		}
		pw, err := readPassword(*password, os.Stdin)
		if err != nil {
			return err
		}
		return withUsers(ctx, cfg, func(svc *users.Service) error {
			if err := svc.SetPasswordByLogin(ctx, *login, pw); err != nil {
				return err
			}
			fmt.Printf("password of %s changed\n", *login)
			return nil
		})
	}
}

func userListSetup(fs *flag.FlagSet) runFunc {
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	return func(ctx context.Context, cfg config.Config) error {
		return withUsers(ctx, cfg, func(svc *users.Service) error {
			var all []users.Summary
			for {
				page, total, err := svc.List(ctx, "", nil, len(all), 500)
				if err != nil {
					return err
				}
				all = append(all, page...)
				if len(page) == 0 || len(all) >= total {
					break
				}
			}
			return printUsers(os.Stdout, all, *asJSON)
		})
	}
}

func printUsers(w io.Writer, list []users.Summary, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LOGIN\tDISPLAY NAME\tE-MAIL\tADMIN\tACTIVE\tSOURCE\tID")
	for _, u := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", u.Login, u.DisplayName, u.Email, yes(u.IsCoreAdmin), yes(u.IsActive), u.AuthSource, u.ID)
	}
	return tw.Flush()
}

func userDisableSetup(fs *flag.FlagSet) runFunc {
	login := fs.String("login", "", "login of the user to deactivate (required)")
	return func(ctx context.Context, cfg config.Config) error {
		if err := requireLogin(*login); err != nil {
			return err
		}
		return withUsers(ctx, cfg, func(svc *users.Service) error {
			acc, err := svc.AccountByLogin(ctx, *login)
			if store.IsNotFound(err) || fault.Is(err, fault.CodeNotFound) {
				return fmt.Errorf("no user with login %q", *login)
			}
			if err != nil {
				return err
			}
			off := false
			if _, err := svc.Update(ctx, nil, acc.ID, users.Patch{IsActive: &off}); err != nil {
				return err
			}
			fmt.Printf("user %s deactivated; their sessions are ended\n", *login)
			return nil
		})
	}
}
