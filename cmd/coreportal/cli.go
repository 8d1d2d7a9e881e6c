package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"coreportal/internal/config"
	"coreportal/internal/fault"
)

// runFunc runs a command once its flags and the configuration are parsed.
type runFunc func(ctx context.Context, cfg config.Config) error

// command is one `coreportal …` command. Every command accepts the
// configuration flags (config.AddFlags) besides its own.
type command struct {
	name    string // "serve", "user disable", …
	args    string // its own flags in the usage line
	summary string // one line for the command list
	about   string // what `<command> -h` says before the flags
	// setup defines the command's own flags on fs and returns its runner.
	setup func(fs *flag.FlagSet) runFunc
	// serving commands run the service: the seed password is checked and
	// the process log is copied into the application log.
	serving bool
	// noConfig commands accept the configuration flags but never read or
	// check the configuration (version, help).
	noConfig bool
}

// groups are the commands that take a sub-command.
var cmdGroups = map[string]string{"user": "user", "license": "license", "licence": "license"}

// exitError carries the exit status of a usage or configuration error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// findCommand splits the command name off args ("user disable --login x"
// gives the user disable command and ["--login", "x"]).
func findCommand(args []string) (*command, []string, error) {
	name, rest := args[0], args[1:]
	if g, ok := cmdGroups[name]; ok {
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			if len(rest) > 0 && isHelpFlag(rest[0]) {
				return &command{name: g, noConfig: true, setup: groupHelp(g)}, rest, nil
			}
			return nil, nil, usageErr("%s needs a sub-command: %s (coreportal help lists them)", g, strings.Join(subcommands(g), ", "))
		}
		name, rest = g+" "+rest[0], rest[1:]
	}
	for _, c := range commands() {
		if c.name == name {
			return c, rest, nil
		}
	}
	return nil, nil, usageErr("unknown command %q (coreportal help lists the commands)", name)
}

func isHelpFlag(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

func subcommands(group string) []string {
	var out []string
	for _, c := range commands() {
		if sub, ok := strings.CutPrefix(c.name, group+" "); ok {
			out = append(out, sub)
		}
	}
	return out
}

// groupHelp prints the commands of a group (`coreportal user -h`).
func groupHelp(group string) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		fs.Usage = func() {
			fmt.Fprintf(fs.Output(), "usage: coreportal %s <sub-command> [flags]\n\nsub-commands:\n", group)
			for _, c := range commands() {
				if strings.HasPrefix(c.name, group+" ") {
					fmt.Fprintf(fs.Output(), "  %-18s %s\n", c.name, c.summary)
				}
			}
			fmt.Fprintf(fs.Output(), "\n`coreportal %s <sub-command> -h` describes one.\n", group)
		}
		return func(context.Context, config.Config) error { return nil }
	}
}

// writeUsage prints the command list (`coreportal help`).
func writeUsage(w io.Writer) {
	fmt.Fprint(w, "usage: coreportal <command> [flags]\n\ncommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, `
configuration flags, accepted by every command (each overrides its environment variable):
  --%s
Every other setting is read from the environment (README, "Configuration").
`+"`coreportal <command> -h` (or `coreportal help <command>`) describes a command and its flags.\n", strings.Join(config.FlagNames, ", --"))
}

// commandHelp is the usage function of one command's flag set.
func commandHelp(c *command, fs *flag.FlagSet) func() {
	return func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: coreportal %s", c.name)
		if c.args != "" {
			fmt.Fprintf(w, " %s", c.args)
		}
		fmt.Fprintf(w, " [configuration flags]\n\n%s\n", c.summary)
		if c.about != "" {
			fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.about))
		}
		fmt.Fprint(w, "\nflags:\n")
		fs.PrintDefaults()
	}
}

// parseCommand defines c's flags and the configuration flags on one flag
// set and parses args. It returns flag.ErrHelp after printing the help to
// stdout for -h and --help.
func parseCommand(c *command, args []string, getenv func(string) string, stdout io.Writer) (runFunc, config.Config, error) {
	fs := flag.NewFlagSet("coreportal "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)      // errors are reported once, by the caller
	fs.Usage = commandHelp(c, fs) // setup may replace it
	run := c.setup(fs)
	var cfg config.Config
	var err error
	if c.noConfig {
		config.AddFlags(fs, &cfg)
		err = fs.Parse(args)
		if err == nil && fs.NArg() > 0 {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
	} else {
		cfg, err = config.LoadFlags(getenv, fs, args)
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return nil, cfg, err
	}
	if err != nil {
		if msg, ok := strings.CutPrefix(err.Error(), "flags: "); ok || c.noConfig {
			return nil, cfg, usageErr("%s (coreportal %s -h lists the flags)", msg, c.name)
		}
		return nil, cfg, &exitError{code: 2, err: fmt.Errorf("configuration error: %w", err)}
	}
	return run, cfg, nil
}

// oneLine is an error as one human line: the message of an API error
// without its code, several errors joined with "; ".
func oneLine(err error) string {
	msg := err.Error()
	var fe *fault.Error
	if errors.As(err, &fe) {
		msg = strings.Replace(msg, fe.Error(), fe.Message, 1)
	}
	parts := strings.FieldsFunc(msg, func(r rune) bool { return r == '\n' || r == '\r' })
	return strings.Join(parts, "; ")
}
