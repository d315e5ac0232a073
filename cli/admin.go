package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"wsapi/app"
	"wsapi/app/secret"
	"wsapi/sqlite"
)

func table(rows [][]string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	return b.String()
}

func orgsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "orgs", Short: "Manage organizations"}
	var name, parent string
	create := &cobra.Command{
		Use: "create", Short: "Create an organization; prints its id", Args: cobra.NoArgs,
		RunE: e.withService(func(cmd *cobra.Command, _ []string, svc *app.Service) error {
			org, err := svc.CreateOrg(cmd.Context(), app.OrgInput{Name: name}, parent)
			if err != nil {
				return err
			}
			return e.print(org, org.ID+"\n")
		}),
	}
	create.Flags().StringVar(&name, "name", "", "organization name (required)")
	create.Flags().StringVar(&parent, "parent", "", "parent organization id, for a sub-organization")
	_ = create.MarkFlagRequired("name")

	list := &cobra.Command{
		Use: "list", Short: "List organizations", Args: cobra.NoArgs,
		RunE: e.withService(func(cmd *cobra.Command, _ []string, svc *app.Service) error {
			orgs, err := svc.ListOrgs(cmd.Context())
			if err != nil {
				return err
			}
			rows := [][]string{{"ID", "NAME", "PARENT", "PLAN", "BALANCE", "CREATED"}}
			for _, o := range orgs {
				parent := ""
				if o.ParentOrgID != nil {
					parent = *o.ParentOrgID
				}
				rows = append(rows, []string{o.ID, o.Name, parent, o.Plan, strconv.FormatFloat(o.Balance, 'f', -1, 64), o.CreatedAt.String()})
			}
			return e.print(orgs, table(rows))
		}),
	}

	var amount float64
	balance := &cobra.Command{
		Use: "balance ORG_ID --set AMOUNT", Short: "Set an organization's balance (0 or less pauses webhook deliveries)",
		Args: cobra.ExactArgs(1),
		RunE: e.withService(func(cmd *cobra.Command, args []string, svc *app.Service) error {
			org, err := svc.SetBalance(cmd.Context(), args[0], amount)
			if err != nil {
				return err
			}
			return e.print(org, fmt.Sprintf("%s balance %s\n", org.ID, strconv.FormatFloat(org.Balance, 'f', -1, 64)))
		}),
	}
	balance.Flags().Float64Var(&amount, "set", 0, "new balance (required)")
	_ = balance.MarkFlagRequired("set")
	cmd.AddCommand(create, list, balance)
	return cmd
}

func keysCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Manage API keys"}
	var name, org, member string
	create := &cobra.Command{
		Use: "create", Short: "Create an API key; prints the token once", Args: cobra.NoArgs,
		Long: "Without --org on an empty database this creates the Default organization and its ADMIN owner.\n" +
			"Without --member the key acts as the organization's owner (its first ADMIN, made if missing).",
		RunE: e.withService(func(cmd *cobra.Command, _ []string, svc *app.Service) error {
			k, err := svc.CreateKeyAsOperator(cmd.Context(), org, member, name)
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stderr, "This token is shown once; store it now.")
			return e.print(k, k.Token+"\n")
		}),
	}
	create.Flags().StringVar(&name, "name", "", "key name (required)")
	create.Flags().StringVar(&org, "org", "", "organization id")
	create.Flags().StringVar(&member, "member", "", "member id the key acts as")
	_ = create.MarkFlagRequired("name")

	var listOrg string
	list := &cobra.Command{
		Use: "list", Short: "List API keys (previews only)", Args: cobra.NoArgs,
		RunE: e.withService(func(cmd *cobra.Command, _ []string, svc *app.Service) error {
			var keys []app.APIKey
			for page := 1; ; page++ {
				l, err := svc.ListKeys(cmd.Context(), listOrg, app.Page{Page: page, Take: app.MaxTake})
				if err != nil {
					return err
				}
				keys = append(keys, l.Items...)
				if len(keys) >= l.Total || len(l.Items) == 0 {
					break
				}
			}
			rows := [][]string{{"ID", "NAME", "ORG", "MEMBER", "PREVIEW", "CREATED"}}
			for _, k := range keys {
				rows = append(rows, []string{k.ID, k.Name, k.OrgID, k.MemberID, k.Preview, k.CreatedAt.String()})
			}
			if keys == nil {
				keys = []app.APIKey{}
			}
			return e.print(keys, table(rows))
		}),
	}
	list.Flags().StringVar(&listOrg, "org", "", "only this organization's keys")

	rotate := &cobra.Command{
		Use: "rotate KEY_ID", Short: "Issue a new token for a key; the old one stops working at once", Args: cobra.ExactArgs(1),
		RunE: e.withService(func(cmd *cobra.Command, args []string, svc *app.Service) error {
			k, err := svc.RotateKey(cmd.Context(), nil, "", args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(e.stderr, "This token is shown once; store it now.")
			return e.print(k, k.Token+"\n")
		}),
	}
	del := &cobra.Command{
		Use: "delete KEY_ID", Short: "Revoke a key at once", Args: cobra.ExactArgs(1),
		RunE: e.withService(func(cmd *cobra.Command, args []string, svc *app.Service) error {
			if err := svc.DeleteKey(cmd.Context(), nil, "", args[0]); err != nil {
				return err
			}
			return e.print(map[string]string{"deleted": args[0]}, "deleted "+args[0]+"\n")
		}),
	}
	cmd.AddCommand(create, list, rotate, del)
	return cmd
}

func migrateCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "migrate", Short: "Apply, roll back or list database migrations"}
	up := &cobra.Command{
		Use: "up", Short: "Apply every pending migration", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var applied []sqlite.MigrationResult
			db, err := openStore(cmd.Context(), e.cfg.DB.Path, func(r sqlite.MigrationResult) {
				applied = append(applied, r)
				fmt.Fprintf(e.stderr, "applied %s (%s)\n", r.Name, r.Duration)
			})
			if err != nil {
				return err
			}
			defer db.Close()
			if applied == nil {
				applied = []sqlite.MigrationResult{}
			}
			return e.print(applied, fmt.Sprintf("%d migration(s) applied\n", len(applied)))
		},
	}
	down := &cobra.Command{
		Use: "down", Short: "Roll back the newest migration", Args: cobra.NoArgs,
		RunE: e.onDatabase(func(cmd *cobra.Command, db *sqlite.DB) error {
			r, err := db.MigrateDown(cmd.Context())
			if err != nil {
				return err
			}
			return e.print(r, fmt.Sprintf("rolled back %s\n", r.Name))
		}),
	}
	status := &cobra.Command{
		Use: "status", Short: "List migrations and whether each is applied", Args: cobra.NoArgs,
		RunE: e.onDatabase(func(cmd *cobra.Command, db *sqlite.DB) error {
			st, err := db.MigrationsStatus(cmd.Context())
			if err != nil {
				return err
			}
			rows := [][]string{{"VERSION", "NAME", "STATE", "APPLIED AT"}}
			for _, s := range st {
				state := "pending"
				if s.Applied {
					state = "applied"
				}
				rows = append(rows, []string{strconv.FormatInt(s.Version, 10), s.Name, state, s.AppliedAt})
			}
			return e.print(st, table(rows))
		}),
	}
	cmd.AddCommand(up, down, status)
	return cmd
}

// onDatabase is the RunE of a command on the database file as it is (no migration applied
// first, unlike the runtime's open): fn runs with it open, closed once fn returns.
func (e *env) onDatabase(fn func(cmd *cobra.Command, db *sqlite.DB) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if err := e.needDatabase(); err != nil {
			return err
		}
		db, err := sqlite.Open(e.cfg.DB.Path)
		if err != nil {
			return err
		}
		defer db.Close()
		return fn(cmd, db)
	}
}

func backupCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "backup FILE", Short: "Write a consistent copy of the live database, and its secrets key to FILE.key",
		Long: "Both files are created 0600 and never overwrite an existing file. The database copy is useless\n" +
			"for secrets (webhook signing secrets, connection credentials, DKIM keys) without FILE.key:\n" +
			"restore both (docs/operations.md).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, keyFile := args[0], args[0]+".key"
			if err := e.needDatabase(); err != nil {
				return err
			}
			if _, err := os.Lstat(keyFile); err == nil {
				return fmt.Errorf("backup: %s already exists", keyFile)
			}
			box, err := secret.LoadOrCreate(e.cfg.keyFile())
			if err != nil {
				return err
			}
			db, err := openStore(cmd.Context(), e.cfg.DB.Path, nil)
			if err != nil {
				return err
			}
			defer db.Close()
			fmt.Fprintf(e.stderr, "backing up %s to %s ...\n", db.Path(), file)
			if err := db.Backup(cmd.Context(), file); err != nil {
				return err
			}
			if err := box.WriteKey(keyFile); err != nil {
				return err
			}
			return e.print(map[string]string{"backup": file, "key": keyFile},
				"backup written to "+file+"\nsecrets key written to "+keyFile+" (keep it with the backup, as secret as the key)\n")
		},
	}
}
