package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"wsapi/app/signin"
)

func membersCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "members", Short: "Manage members' web sign-in"}
	var org string
	password := &cobra.Command{
		Use:   "password EMAIL",
		Short: "Set a member's web app password (asked on the terminal, or read from stdin); ends their sessions",
		Long: "Sets the password the member signs in to the web app (/app/) with, and signs them out everywhere.\n" +
			"On a terminal the password is asked twice without echo; otherwise the first line of stdin is read.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pw, err := e.readPassword(cmd)
			if err != nil {
				return err
			}
			rt, err := Build(cmd.Context(), e.cfg, Options{Log: e.logger()})
			if err != nil {
				return err
			}
			defer rt.Close()
			m, err := rt.SignIn.SetPasswordByEmail(cmd.Context(), org, args[0], pw)
			if err != nil {
				return err
			}
			return e.print(map[string]string{"member_id": m.ID, "org_id": m.OrgID, "email": m.Email},
				fmt.Sprintf("password set for %s (%s); sign in at %s/app/signin\n", m.Email, m.ID, strings.TrimSuffix(e.cfg.HTTP.PublicURL, "/")))
		},
	}
	password.Flags().StringVar(&org, "org", "", "the member's organization, when the email is in several")
	cmd.AddCommand(password)
	return cmd
}

// readPassword asks twice on a terminal, else reads one line of stdin.
func (e *env) readPassword(cmd *cobra.Command) (string, error) {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(e.stderr, "New password (at least 10 characters): ")
		a, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(e.stderr, "Again: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return "", err
		}
		if string(a) != string(b) {
			return "", errors.New("the two passwords differ; nothing was changed")
		}
		return string(a), signin.ValidatePassword(string(a))
	}
	line, err := bufio.NewReader(io.LimitReader(in, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	pw := strings.TrimRight(line, "\r\n")
	return pw, signin.ValidatePassword(pw)
}
