// Package cli is the binary's command line and the only place that wires the packages
// together: it reads the configuration, opens the store and starts the server and workers.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"wsapi/app"
	"wsapi/sqlite"
)

// Execute runs the command line and exits non-zero on error. Errors a command did not print
// itself (unknown flags and commands, missing arguments, a bad configuration) are printed here.
func Execute() {
	cmd := NewRootCmd()
	if err := cmd.Execute(); err != nil {
		var r reportedError
		if !errors.As(err, &r) {
			fmt.Fprintln(cmd.ErrOrStderr(), "error:", humanError(err))
		}
		os.Exit(1)
	}
}

// reportedError is an error that a command has already printed for people.
type reportedError struct{ error }

func (r reportedError) Unwrap() error { return r.error }

// env is what every command shares: flags and the loaded configuration.
type env struct {
	configFile string
	configRead string // the configuration file read, "" when none
	dbSource   string // where db.path came from, for the messages that name the database
	json       bool
	cfg        Config
	stdout     io.Writer
	stderr     io.Writer
}

// NewRootCmd builds the command tree; tests run it in-process.
func NewRootCmd() *cobra.Command {
	e := &env{}
	root := &cobra.Command{
		Use:           "app",
		Short:         "Self-hosted workspace messaging API",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			e.stdout, e.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			v, err := newViper(e.configFile)
			if err != nil {
				return err
			}
			e.configRead = v.ConfigFileUsed()
			if f := cmd.Flags().Lookup("db"); f != nil {
				_ = v.BindPFlag("db.path", f)
			}
			e.dbSource = dbSource(cmd, v)
			if f := cmd.Flags().Lookup("addr"); f != nil {
				_ = v.BindPFlag("http.addr", f)
			}
			e.cfg, err = decodeConfig(v)
			return err
		},
	}
	root.PersistentFlags().StringVar(&e.configFile, "config", "", "configuration file (default ./config.yaml when present)")
	root.PersistentFlags().BoolVar(&e.json, "json", false, "print JSON for scripts")
	root.PersistentFlags().String("db", "", "SQLite file (overrides db.path)")
	root.AddCommand(serveCmd(e), migrateCmd(e), orgsCmd(e), keysCmd(e), deliveriesCmd(e), contactsCmd(e), versionCmd(e), backupCmd(e), listenCmd(e), membersCmd(e))
	// Errors go to stderr here rather than through cobra so the exit code stays 1.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return fmt.Errorf("%w\n\n%s", err, c.UsageString()) })
	for _, c := range root.Commands() {
		wrapErrors(c)
	}
	return root
}

// wrapErrors prints a command's error for people before cobra returns it.
func wrapErrors(c *cobra.Command) {
	for _, sub := range c.Commands() {
		wrapErrors(sub)
	}
	if c.RunE == nil {
		return
	}
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		if err != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "error:", humanError(err))
			return reportedError{err}
		}
		return nil
	}
}

func humanError(err error) string {
	if e, ok := app.AsError(err); ok {
		msg := e.Message
		for f, why := range e.Fields {
			if !strings.Contains(msg, why) {
				msg += "; " + f + ": " + why
			}
		}
		return msg
	}
	return err.Error()
}

func (e *env) logger() *slog.Logger { return e.loggerTo(e.stderr) }

// loggerTo is a logger in log.format at log.level, writing to w.
func (e *env) loggerTo(w io.Writer) *slog.Logger {
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(e.cfg.Log.Level))
	opts := &slog.HandlerOptions{Level: level}
	if e.cfg.Log.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// openStore opens and migrates the database at path; progress reports each migration applied.
func openStore(ctx context.Context, path string, progress func(sqlite.MigrationResult)) (*sqlite.DB, error) {
	db, err := sqlite.Open(path)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, progress); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// service wires the application as serve does (without starting workers) for an admin
// command.
func (e *env) service(ctx context.Context) (*app.Service, func(), error) {
	if err := e.needDatabase(); err != nil {
		return nil, nil, err
	}
	rt, err := Build(ctx, e.cfg, Options{Log: e.logger()})
	if err != nil {
		return nil, nil, err
	}
	return rt.Service, func() { rt.Close() }, nil
}

// withService is the RunE of an admin command that works through the service: fn runs with
// the service wired as for service, closed once fn returns.
func (e *env) withService(fn func(cmd *cobra.Command, args []string, svc *app.Service) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		svc, done, err := e.service(cmd.Context())
		if err != nil {
			return err
		}
		defer done()
		return fn(cmd, args, svc)
	}
}

// print writes v as JSON with --json, else the text for people.
func (e *env) print(v any, text string) error {
	if e.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprint(e.stdout, text)
	return err
}
