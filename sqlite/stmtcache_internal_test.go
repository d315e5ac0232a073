package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"wsapi/app"
)

const eachSQL = "SELECT value FROM json_each(?) ORDER BY value"

// values runs eachSQL and, for each value while the rows are still open, runs the same SQL
// again one level deeper: the inner call must not reset the statement under the outer loop.
func values(t *testing.T, tx *Tx, list string, depth int) string {
	t.Helper()
	rows, err := tx.query(eachSQL, list)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		if depth > 0 {
			v += "(" + values(t, tx, `["x","y"]`, depth-1) + ")"
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, ",")
}

func TestCachedStatementsNestErrAndSeeNewRows(t *testing.T) {
	db := openInternal(t)
	ctx := context.Background()
	for range 3 {
		err := db.Read(ctx, func(atx app.Tx) error {
			got := values(t, atx.(*Tx), `["a","b"]`, 2)
			if want := "a(x(x,y),y(x,y)),b(x(x,y),y(x,y))"; got != want {
				t.Fatalf("nested reads: %s, want %s", got, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		var n int
		err := db.Read(ctx, func(atx app.Tx) error {
			var err error
			n, err = atx.(*Tx).count("SELECT COUNT(*) FROM orgs WHERE name = ?", "cached")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := "INSERT INTO orgs (id, name, plan, created_at, updated_at) VALUES (?, 'cached', 'free', 1, 1)"
	steps := []struct {
		id       string
		accepted bool
		rows     int
	}{{"org_1", true, 1}, {"org_1", false, 1}, {"org_2", true, 2}}
	for _, st := range steps {
		err := db.Write(ctx, func(atx app.Tx) error {
			_, err := atx.(*Tx).exec(insert, st.id)
			return err
		})
		if st.accepted != (err == nil) {
			t.Fatalf("insert %s: %v", st.id, err)
		}
		if n := count(); n != st.rows {
			t.Fatalf("after inserting %s: %d rows, want %d", st.id, n, st.rows)
		}
	}
}

// BenchmarkAuthenticateRead is the read every request makes (the key, its member and role):
// with the statement cache it is mostly SQLite's own work, not parsing.
func BenchmarkAuthenticateRead(b *testing.B) {
	db := openInternal(b)
	ctx := context.Background()
	now := app.At(time.Now())
	org := app.Org{ID: app.NewID("org"), Name: "O", Plan: app.PlanFree, CreatedAt: now, UpdatedAt: now}
	m := app.Member{ID: app.NewID("mem"), OrgID: org.ID, Name: "M", Email: "m@example.com", Role: app.RoleAdmin, CreatedAt: now, UpdatedAt: now}
	k := app.APIKey{ID: app.NewID("key"), OrgID: org.ID, MemberID: m.ID, Name: "k", Preview: "sk_…", CreatedAt: now}
	hash := app.HashToken("sk_bench")
	err := db.Write(ctx, func(tx app.Tx) error {
		if err := tx.CreateOrg(org); err != nil {
			return err
		}
		if err := tx.CreateMember(m); err != nil {
			return err
		}
		return tx.CreateKey(k, hash)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			err := db.Read(ctx, func(tx app.Tx) error {
				_, _, err := tx.Authenticate(hash)
				return err
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// TestTransactionsBeginFromTheCache: BEGIN, COMMIT and ROLLBACK are cached statements of
// the connection like any other, not prepared anew for every transaction by the driver.
func TestTransactionsBeginFromTheCache(t *testing.T) {
	db := openInternal(t)
	ctx := context.Background()
	if err := db.Write(ctx, func(tx app.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := db.Read(ctx, func(tx app.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pool *sql.DB
		want []string
	}{{db.writer, []string{"BEGIN IMMEDIATE", "COMMIT"}}, {db.reader, []string{"BEGIN", "ROLLBACK"}}} {
		conn, err := c.pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = conn.Raw(func(dc any) error {
			for _, q := range c.want {
				if _, ok := dc.(*cachingConn).stmts[q]; !ok {
					t.Errorf("%q is not among the connection's statements", q)
				}
			}
			return nil
		})
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}
