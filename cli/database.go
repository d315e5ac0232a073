package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"wsapi/app"
)

// needDatabase refuses an admin command where its database does not exist. Opening would
// create an empty one, and a key made there is a key the running server (on its own
// database) has never heard of. Only `serve` and `migrate up` create databases.
func (e *env) needDatabase() error {
	path := e.cfg.DB.Path
	_, err := os.Stat(path)
	if err == nil {
		return nil
	}
	abs, _ := filepath.Abs(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("database %s: %w", abs, err)
	}
	return fmt.Errorf("no database at %s%s; this command works on an existing database and creates none. "+
		"Point it at the server's database with --db PATH, --config FILE (its db.path) or APP_DB_PATH, "+
		"run it from the server's directory, or create a database with `app migrate up` or `app serve`", abs, e.configNote())
}

// configNote says where db.path came from, for the messages that name the database.
func (e *env) configNote() string {
	if e.dbSource == "" {
		return ""
	}
	return " (db.path from " + e.dbSource + ")"
}

// dbSource names where db.path came from: the --db flag, APP_DB_PATH, the configuration
// file, or the default (no file read).
func dbSource(cmd *cobra.Command, v *viper.Viper) string {
	switch f := cmd.Flags().Lookup("db"); {
	case f != nil && f.Changed:
		return "--db"
	case os.Getenv("APP_DB_PATH") != "":
		return "APP_DB_PATH"
	case v.InConfig("db.path"):
		return v.ConfigFileUsed()
	case v.ConfigFileUsed() != "":
		return "the default; " + v.ConfigFileUsed() + " sets none"
	}
	return "the default; no configuration file read"
}

// resolveOrg turns an --org value into an organization id: `c` stands for the default
// organization (the oldest top-level one, which the first start creates), as `c` in the
// API's paths stands for the key's own; any other value must name an organization.
func resolveOrg(ctx context.Context, svc *app.Service, ref string) (string, error) {
	if ref != "c" {
		_, err := svc.GetOrg(ctx, ref)
		if errors.Is(err, app.ErrNotFound) {
			return "", fmt.Errorf("no organization %q in this database: `app orgs list` lists them; --org c is the default organization", ref)
		}
		return ref, err
	}
	orgs, err := svc.ListOrgs(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range orgs {
		if o.ParentOrgID == nil {
			return o.ID, nil
		}
	}
	return "", errors.New("this database has no organization yet: `app serve` (or `app keys create`) makes the default one")
}
