package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"coreportal/internal/bus"
	"coreportal/internal/config"
	"coreportal/internal/users"
)

func userCommand(ctx context.Context, cfg config.Config, cmd string, args []string, stdin io.Reader) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	login := fs.String("login", "", "login")
	password := fs.String("password", "", "password (read from stdin when omitted)")
	display := fs.String("display-name", "", "display name (create)")
	email := fs.String("email", "", "email (create)")
	admin := fs.Bool("admin", false, "give the administrator role (create)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *login == "" {
		return errors.New("--login is required")
	}
	if *password == "" {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && line == "" {
			return errors.New("--password is required (or give it on stdin)")
		}
		*password = strings.TrimRight(line, "\r\n")
	}
	db, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := users.NewService(db, bus.NewMemory())
	if cmd == "user create" {
		u, err := svc.Create(ctx, users.NewUser{Login: *login, Password: *password, DisplayName: *display, Email: *email, IsCoreAdmin: *admin})
		if err != nil {
			return err
		}
		fmt.Printf("created user %s (%s)\n", u.Login, u.ID)
		return nil
	}
	if err := svc.SetPasswordByLogin(ctx, *login, *password); err != nil {
		return err
	}
	fmt.Printf("password of %s changed\n", *login)
	return nil
}
