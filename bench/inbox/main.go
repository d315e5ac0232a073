// Command inbox measures GET /orgs/c/inbox with a search term and filters on a large data
// set: the runtime `app serve` builds (cli.Build over a SQLite file), 100,000 chats across
// 20,000 contacts with 1,000,000 messages seeded straight into the file, then N concurrent
// clients through the real HTTP handler for a fixed time. It prints req/s, p50 and p99.
//
//	go run ./bench/inbox                       # seed a fresh database in a temp dir, then measure
//	go run ./bench/inbox -db /tmp/inbox.db     # seed it once there, reuse it on later runs
//
// See bench/inbox/README.md.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"wsapi/bench/internal/measure"
	"wsapi/cli"
)

func main() {
	dbPath := flag.String("db", "", "database file; seeded when it does not exist, reused when it does (default: a fresh temp file)")
	contacts := flag.Int("contacts", 20000, "contacts to seed (one channel each)")
	chats := flag.Int("chats", 100000, "chats to seed")
	messages := flag.Int("messages", 1000000, "messages to seed")
	clients := flag.Int("clients", 20, "concurrent clients")
	duration := flag.Duration("duration", 15*time.Second, "measuring time")
	take := flag.Int("take", 0, "page size (0: the API default, 100)")
	only := flag.String("only", "", "run only the query mixes whose name contains this")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measuring phase to this file")
	explain := flag.Bool("explain", false, "print EXPLAIN QUERY PLAN of the main query and exit")
	writes := flag.Float64("writes", 0, "messages per second posted into random chats while each mix runs (each one changes the inbox)")
	cache := flag.Int("cache", cli.DefaultConfig().DB.InboxCacheChats, "db.inbox_cache_chats (0: every answer read from the file)")
	flag.Parse()
	if err := run(*dbPath, seedSpec{contacts: *contacts, chats: *chats, messages: *messages, seed: 1},
		options{*clients, *duration, *take, *only, *cpuprofile, *explain, *writes, *cache}); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

type options struct {
	clients    int
	duration   time.Duration
	take       int
	only       string
	cpuprofile string
	explain    bool
	writes     float64
	cache      int
}

func run(dbPath string, spec seedSpec, o options) error {
	ctx := context.Background()
	clients, duration, take, only := o.clients, o.duration, o.take, o.only
	if dbPath == "" {
		dir, err := os.MkdirTemp("", "bench-inbox-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dbPath = filepath.Join(dir, "inbox.db")
	}
	_, statErr := os.Stat(dbPath)
	fresh := os.IsNotExist(statErr)

	cfg := cli.DefaultConfig()
	cfg.DB.Path = dbPath
	cfg.Secrets.KeyFile = dbPath + ".key"
	cfg.HTTP.RateLimitPerMinute = 1 << 30
	cfg.DB.InboxCacheChats = o.cache
	t0 := time.Now()
	rt, err := cli.Build(ctx, cfg, cli.Options{Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer rt.Close()
	logf("runtime built (migrations applied) in %s", time.Since(t0).Round(time.Millisecond))
	nk, ok, err := rt.Service.Bootstrap(ctx, "bench")
	if err == nil && !ok {
		nk, err = rt.Service.CreateKeyAsOperator(ctx, "", "", "bench")
	}
	if err != nil {
		return err
	}
	srv := httptest.NewServer(rt.Handler)
	defer srv.Close()
	// The clients ask for gzip as a browser does, but like wrk they read the bytes without
	// inflating them: they share the server's cores, and inflating 100-chat pages was a third
	// of the process's CPU, time the server then waited for.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients * 2, DisableCompression: true}}
	do := func(method, path, body string) (*http.Response, []byte, error) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+nk.Token)
		if method == "GET" {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		return res, data, err
	}

	if fresh {
		spec.orgID, spec.ownerID = nk.OrgID, nk.MemberID
		for i := range 20 {
			res, body, err := do("POST", "/orgs/c/members", fmt.Sprintf(`{"name":"Agent %02d","email":"agent%02d@example.com","role":"MEMBER"}`, i, i))
			if err != nil || res.StatusCode != 201 {
				return fmt.Errorf("create member: %v %s", err, body)
			}
			var m struct{ ID string }
			json.Unmarshal(body, &m)
			spec.memberIDs = append(spec.memberIDs, m.ID)
		}
		if err := seed(ctx, dbPath, spec, logf); err != nil {
			return err
		}
	}
	if st, err := os.Stat(dbPath); err == nil {
		logf("database %s: %d MiB", dbPath, st.Size()>>20)
	}
	if o.explain {
		return explainPlans(ctx, dbPath, nk.OrgID)
	}
	var chatIDs []string
	if o.writes > 0 {
		if chatIDs, err = sampleChats(ctx, dbPath, 2000); err != nil {
			return err
		}
	}

	mixes := queryMixes()
	pathOf := func(q string) string {
		if take > 0 {
			return fmt.Sprintf("/orgs/c/inbox?%s&take=%d", q, take)
		}
		return "/orgs/c/inbox?" + q
	}
	counts := map[string]string{}
	for _, m := range mixes {
		lo, hi := -1, 0
		for _, q := range m.queries {
			res, body, err := do("GET", pathOf(q), "")
			if err != nil || res.StatusCode != 200 {
				return fmt.Errorf("GET %s: %v %.200s", pathOf(q), err, body)
			}
			n, _ := strconv.Atoi(res.Header.Get("pagination-count"))
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		counts[m.name] = fmt.Sprintf("%d-%d", lo, hi)
	}
	get := func(path string) (int, string, []byte, error) {
		res, body, err := do("GET", path, "")
		if err != nil {
			return 0, "", nil, err
		}
		return res.StatusCode, res.Header.Get("pagination-next"), body, nil
	}
	stopProfile, err := measure.StartCPUProfile(o.cpuprofile)
	if err != nil {
		return err
	}
	fmt.Printf("GOMAXPROCS=%d, %d clients, %s per mix, take=%d, inbox cache %d chats, %.0f messages/s written during each mix\n\n",
		runtime.GOMAXPROCS(0), clients, duration, max(take, 100), o.cache, o.writes)
	fmt.Printf("| mix | requests | req/s | p50 | p90 | p99 | max | CPU per request | matching chats (min-max) | messages written | search views patched / read whole |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range mixes {
		if only != "" && !strings.Contains(m.name, only) {
			continue
		}
		cpu0 := measure.CPUTime()
		patched0, whole0 := rt.DB.InboxViewStats()
		stop := make(chan struct{})
		wrote := make(chan writeResult, 1)
		go func() { wrote <- writeMessages(do, chatIDs, o.writes, stop) }()
		lat, err := load(get, pathOf, m, clients, duration)
		close(stop)
		w := <-wrote
		if err != nil {
			return err
		}
		if w.err != nil {
			return w.err
		}
		perReq := float64((measure.CPUTime() - cpu0).Microseconds()) / 1000 / float64(max(1, len(lat)))
		patched, whole := rt.DB.InboxViewStats()
		fmt.Printf("| %s | %d | %.0f | %s | %s | %s | %s | %.1f ms | %s | %d | %d / %d |\n", m.name, len(lat), float64(len(lat))/duration.Seconds(),
			pct(lat, 50), pct(lat, 90), pct(lat, 99), pct(lat, 100), perReq, counts[m.name], w.n, patched-patched0, whole-whole0)
	}
	stopProfile()
	fmt.Printf("\npeak RSS of the process (server and clients): %d MiB\n", measure.PeakRSS()>>20)
	return nil
}

// mix is a set of queries the clients draw from in turn.
type mix struct {
	name    string
	queries []string
	// walk follows pagination-next for up to this many pages, then starts over.
	walk int
}

func queryMixes() []mix {
	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	var varied []string
	for _, w := range []string{"invoice", "refund", "shipping", "delivery", "password", "warranty", "subscription", "cancel", "hello", "invo", "refund invoice"} {
		for _, f := range [][]string{{"state", "OPEN", "filter", "UNASSIGNED"}, {"filter", "UNREAD", "integration_id", "email"},
			{"state", "CLOSED", "csat_max", "3"}, {"filter", "UNRESOLVED", "ai_status", "ENABLED"}} {
			varied = append(varied, q(append([]string{"search", w}, f...)...))
		}
	}
	return []mix{
		{"search=invoice (1%) & state=OPEN & filter=UNASSIGNED", []string{q("search", "invoice", "state", "OPEN", "filter", "UNASSIGNED")}, 0},
		{"11 words (0.1% to 10%, a prefix, two words) x 4 filter pairs", varied, 0},
		{"no search, state=OPEN & filter=UNASSIGNED", []string{q("state", "OPEN", "filter", "UNASSIGNED")}, 0},
		{"search=invoice (1%), pages 1-10 through next", []string{q("search", "invoice")}, 10},
	}
}

// load runs clients for d, each sending the mix's queries in turn, and answers the sorted
// latencies.
func load(get func(string) (int, string, []byte, error), pathOf func(string) string, m mix, clients int, d time.Duration) ([]time.Duration, error) {
	var mu sync.Mutex
	var all []time.Duration
	var firstErr error
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			next, page := "", 0
			for i := c; time.Now().Before(deadline); i++ {
				path := pathOf(m.queries[i%len(m.queries)])
				if next != "" {
					path += "&next=" + url.QueryEscape(next)
				}
				t := time.Now()
				code, n, body, err := get(path)
				mine = append(mine, time.Since(t))
				if err != nil || code != 200 {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("GET %s: %d %v %.200s", path, code, err, body)
					}
					mu.Unlock()
					return
				}
				if page++; m.walk > 0 && page < m.walk && n != "" {
					next = n
				} else {
					next, page = "", 0
				}
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	slices.Sort(all)
	return all, firstErr
}

func pct(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "-"
	}
	i := min(len(sorted)-1, len(sorted)*p/100)
	return fmt.Sprintf("%.1f ms", float64(sorted[i].Microseconds())/1000)
}

// explainPlans prints the plans SQLite picks for the inbox's statements (the SQL of
// sqlite/inboxsearch.go for search=invoice&state=OPEN&filter=UNASSIGNED).
func explainPlans(ctx context.Context, path, orgID string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	statements := []struct {
		sql  string
		args []any
	}{
		{`SELECT (SELECT COALESCE(group_concat(rowid >> 32), '') FROM chat_message_fts WHERE chat_message_fts MATCH ?1),
			(SELECT COALESCE(group_concat(rowid), '') FROM chat_meta_fts WHERE chat_meta_fts MATCH ?1)`, []any{`"invoice"*`}},
		{`SELECT COALESCE(group_concat(seq), ''), COALESCE(SUM(above), 0) FROM (SELECT c.seq, 0 AS above FROM chats c
			WHERE c.org_id = ? AND c.state = ? AND c.assigned_user_id IS NULL ORDER BY c.updated_at DESC, c.id DESC)`, []any{orgID, "OPEN"}},
	}
	for _, st := range statements {
		rows, err := db.QueryContext(ctx, `EXPLAIN QUERY PLAN `+st.sql, st.args...)
		if err != nil {
			return err
		}
		fmt.Println(strings.Join(strings.Fields(st.sql), " "))
		for rows.Next() {
			var id, parent, notused int
			var detail string
			rows.Scan(&id, &parent, &notused, &detail)
			fmt.Printf("  %d %d %s\n", id, parent, detail)
		}
		rows.Close()
	}
	return nil
}
