package cli

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"wsapi/app"
)

func contactsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "contacts", Short: "Manage contacts"}
	var orgRef, segment string
	var dry bool
	imp := &cobra.Command{
		Use:   "import FILE.csv",
		Short: "Import contacts from a CSV file with the bulk import's rules",
		Long: "The file needs a header row naming some of: user_id, name, email, phone, contact_id.\n" +
			"Rows are imported in chunks of 50,000, each chunk in one transaction with the rules of\n" +
			"POST /contacts/bulk; a row repeating one of an earlier chunk is matched as updated.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, lines, err := readContactsCSV(args[0], e.stderr)
			if err != nil {
				return err
			}
			svc, done, err := e.service(cmd.Context())
			if err != nil {
				return err
			}
			defer done()
			org, err := resolveOrg(cmd.Context(), svc, orgRef)
			if err != nil {
				return err
			}
			var segs []string
			if segment != "" {
				segs = []string{segment}
			}
			total := app.BulkResult{Created: []app.BulkChannel{}, Updated: []app.BulkChannel{}, Invalid: []app.BulkChannel{}}
			bar := newProgress(e.stderr, "importing", len(rows))
			for start := 0; start < len(rows); start += app.MaxBulkChannels {
				chunk := app.BulkInput{Channels: rows[start:min(start+app.MaxBulkChannels, len(rows))], SegmentIDs: segs}
				var res app.BulkResult
				if dry {
					res, err = svc.BulkDryRun(cmd.Context(), org, chunk)
				} else {
					res, err = svc.BulkImport(cmd.Context(), org, chunk)
				}
				if err != nil {
					return err
				}
				total.Created = append(total.Created, res.Created...)
				total.Updated = append(total.Updated, res.Updated...)
				total.Invalid = append(total.Invalid, res.Invalid...)
				for i, why := range res.Errors { // named by the file's row, so it can be found and fixed
					total.Errors = append(total.Errors, fmt.Sprintf("line %d: %s", lines[start+res.InvalidAt[i]], why))
				}
				bar.set(start + len(chunk.Channels))
			}
			bar.done()
			verb := "imported"
			if dry {
				verb = "dry run (nothing written)"
			}
			text := fmt.Sprintf("%s: %d created, %d updated, %d invalid\n", verb, len(total.Created), len(total.Updated), len(total.Invalid))
			for i, it := range total.Invalid {
				if i == 20 {
					text += fmt.Sprintf("  ... and %d more\n", len(total.Invalid)-20)
					break
				}
				text += fmt.Sprintf("  invalid %s (%s)\n", describeItem(it), total.Errors[i])
			}
			return e.print(total, text)
		},
	}
	imp.Flags().StringVar(&orgRef, "org", "", "organization id, or c for the default organization (required)")
	imp.Flags().StringVar(&segment, "segment", "", "add every created or updated contact to this segment")
	imp.Flags().BoolVar(&dry, "dry-run", false, "classify only; write nothing")
	_ = imp.MarkFlagRequired("org")
	cmd.AddCommand(imp)
	return cmd
}

func describeItem(it app.BulkChannel) string {
	for _, v := range []string{it.Email, it.Phone, it.UserID, it.Name} {
		if v != "" {
			return v
		}
	}
	return "(empty row)"
}

// readContactsCSV reads every row and the file's line each starts on, showing progress by
// bytes for big files.
func readContactsCSV(path string, stderr io.Writer) (rows []app.BulkChannel, lines []int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	counter := &countingReader{r: f}
	r := csv.NewReader(counter)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: no header row: %w", path, err)
	}
	cols := map[string]int{}
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		switch name {
		case "user_id", "name", "email", "phone", "contact_id":
			cols[name] = i
		default:
			return nil, nil, fmt.Errorf("%s: unknown column %q (use user_id, name, email, phone, contact_id)", path, h)
		}
	}
	bar := newProgress(stderr, "reading", int(st.Size()))
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		get := func(name string) string {
			if i, ok := cols[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		rows = append(rows, app.BulkChannel{UserID: get("user_id"), Name: get("name"), Email: get("email"),
			Phone: get("phone"), ContactID: get("contact_id")})
		line, _ := r.FieldPos(0)
		lines = append(lines, line)
		if len(rows)%1000 == 0 {
			bar.set(counter.n)
		}
	}
	bar.set(int(st.Size()))
	bar.done()
	return rows, lines, nil
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
