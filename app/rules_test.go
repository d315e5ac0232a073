package app

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var testStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestIdleClaimsLookOnAReaderFirst: an idle worker's claim looks for due work in a read
// transaction and takes the one writer only when there is some; a nudged (busy) claim goes
// straight to the writer.
func TestIdleClaimsLookOnAReaderFirst(t *testing.T) {
	t.Parallel()
	claims := map[string]func(s *Service, room ClaimRoom) error{
		"deliveries": func(s *Service, room ClaimRoom) error {
			_, err := s.ClaimDeliveries(context.Background(), room)
			return err
		},
		"recipients": func(s *Service, room ClaimRoom) error {
			_, err := s.ClaimRecipients(context.Background(), room)
			return err
		},
		"knowledge": func(s *Service, room ClaimRoom) error {
			_, err := s.ClaimKnowledge(context.Background(), room)
			return err
		},
		"runs": func(s *Service, room ClaimRoom) error {
			_, err := s.ClaimRuns(context.Background(), "owner", room)
			return err
		},
	}
	for name, claim := range claims {
		for _, tc := range []struct {
			idle, due             bool
			wantReads, wantWrites int
		}{
			{idle: true, due: false, wantReads: 1, wantWrites: 0},
			{idle: true, due: true, wantReads: 1, wantWrites: 1},
			{idle: false, due: false, wantReads: 0, wantWrites: 1},
		} {
			s, st := fakeService(&fakeTx{due: tc.due})
			if name == "runs" { // runs always look first: orphans and due runs are cheap to read
				tc.wantReads = 1
				if !tc.due {
					tc.wantWrites = 0
				}
			}
			if err := claim(s, ClaimRoom{Limit: 4, LookFirst: tc.idle}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if st.reads != tc.wantReads || st.writes != tc.wantWrites {
				t.Errorf("%s, idle %v, due %v: %d reads and %d writes, want %d and %d", name, tc.idle, tc.due,
					st.reads, st.writes, tc.wantReads, tc.wantWrites)
			}
		}
	}
}

// TestRetryScheduleAndAutoDisable: each failed attempt schedules the next after its delay,
// counted from when the attempt was made; the attempt after the last delay fails the
// delivery, lengthens the endpoint's streak and, at DisableAfter, disables it with the last
// error; a success resets the streak.
func TestRetryScheduleAndAutoDisable(t *testing.T) {
	t.Parallel()
	schedule := []time.Duration{time.Minute, 5 * time.Minute, time.Hour}
	code := func(n int) *int { return &n }
	failed := Attempt{Status: AttemptFailed, ResponseCode: code(503)}
	timeout := "timeout after 10s"
	cases := []struct {
		name        string
		attempts    int // made before this one
		streak      int
		enabled     bool
		attempt     Attempt
		wantStatus  string
		wantNext    time.Duration // after the attempt's time; 0: none
		wantStreak  int
		wantEnabled bool
		wantReason  string
	}{
		{"first failure waits the first delay", 0, 0, true, failed, DeliveryPending, time.Minute, 0, true, ""},
		{"third failure waits the last delay", 2, 0, true, failed, DeliveryPending, time.Hour, 0, true, ""},
		{"failure after the last delay fails the delivery", 3, 0, true, failed, DeliveryFailed, 0, 1, true, ""},
		{"the failure that reaches the limit disables", 3, 2, true, failed, DeliveryFailed, 0, 3, false,
			"3 deliveries in a row failed; last error: HTTP 503"},
		{"the reason names a transport error", 3, 2, true, Attempt{Status: AttemptFailed, Error: &timeout}, DeliveryFailed, 0, 3, false,
			"3 deliveries in a row failed; last error: timeout after 10s"},
		{"an endpoint already disabled keeps its reason", 3, 5, false, failed, DeliveryFailed, 0, 6, false, ""},
		{"a success resets the streak", 1, 2, true, Attempt{Status: AttemptSucceeded, ResponseCode: code(200)}, DeliverySucceeded, 0, 0, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tx := &fakeTx{delivery: Delivery{ID: "dlv_1", OrgID: "org_1", WebhookID: "wh_1", Status: DeliveryPending, AttemptsCount: tc.attempts},
				webhook: Webhook{ID: "wh_1", Enabled: tc.enabled, ConsecutiveFailures: tc.streak}}
			s, _ := fakeService(tx)
			s.Webhooks = WebhookPolicy{RetrySchedule: schedule, DisableAfter: 3}
			sent := At(testStart.Add(-30 * time.Second)) // recorded half a minute after it was made
			a := tc.attempt
			a.CreatedAt = sent
			if err := s.FinishDelivery(context.Background(), Job{OrgID: "org_1", DeliveryID: "dlv_1"}, a); err != nil {
				t.Fatal(err)
			}
			d, w := tx.delivery, tx.webhook
			if d.Status != tc.wantStatus || d.AttemptsCount != tc.attempts+1 {
				t.Errorf("delivery %s after %d attempts, want %s after %d", d.Status, d.AttemptsCount, tc.wantStatus, tc.attempts+1)
			}
			if tc.wantNext != 0 && !d.NextAttemptAt.Equal(sent.Add(tc.wantNext)) {
				t.Errorf("next attempt at %s, want %s", d.NextAttemptAt, At(sent.Add(tc.wantNext)))
			}
			reason := ""
			if w.DisabledReason != nil {
				reason = *w.DisabledReason
			}
			if w.ConsecutiveFailures != tc.wantStreak || w.Enabled != tc.wantEnabled || reason != tc.wantReason {
				t.Errorf("endpoint streak %d enabled %v reason %q; want %d %v %q", w.ConsecutiveFailures, w.Enabled, reason,
					tc.wantStreak, tc.wantEnabled, tc.wantReason)
			}
		})
	}
}

// TestMergeCarriesTheEarliestOptOut: a merge keeps an opt-out of either contact, with the
// earlier date, and tells which opt-outs are new to the contact that stays.
func TestMergeCarriesTheEarliestOptOut(t *testing.T) {
	t.Parallel()
	early, late := At(testStart), At(testStart.Add(time.Hour))
	why := "too many"
	cases := []struct {
		name                 string
		dst, src             Contact
		wantBlocked, wantNew [2]bool // blocked, unsubscribed
		wantBlockedAt        Time
		wantUnsubAt          Time
		wantReason           *string
	}{
		{"neither opted out", Contact{}, Contact{}, [2]bool{}, [2]bool{}, Time{}, Time{}, nil},
		{"the source's block is new", Contact{}, Contact{Blocked: true, BlockedAt: early},
			[2]bool{true, false}, [2]bool{true, false}, early, Time{}, nil},
		{"an earlier block of the source wins, not new", Contact{Blocked: true, BlockedAt: late}, Contact{Blocked: true, BlockedAt: early},
			[2]bool{true, false}, [2]bool{}, early, Time{}, nil},
		{"a later block of the source changes nothing", Contact{Blocked: true, BlockedAt: early}, Contact{Blocked: true, BlockedAt: late},
			[2]bool{true, false}, [2]bool{}, early, Time{}, nil},
		{"the source's unsubscribe comes with its reason", Contact{}, Contact{Unsubscribed: true, UnsubscribedAt: late, UnsubscribeReason: &why},
			[2]bool{false, true}, [2]bool{false, true}, Time{}, late, &why},
		{"the target's own opt-outs stay", Contact{Blocked: true, BlockedAt: late, Unsubscribed: true, UnsubscribedAt: late}, Contact{},
			[2]bool{true, true}, [2]bool{}, late, late, nil},
	}
	for _, tc := range cases {
		dst := tc.dst
		b, u := mergeOptOuts(&dst, tc.src)
		if [2]bool{dst.Blocked, dst.Unsubscribed} != tc.wantBlocked || [2]bool{b, u} != tc.wantNew ||
			!dst.BlockedAt.Equal(tc.wantBlockedAt.Time) || !dst.UnsubscribedAt.Equal(tc.wantUnsubAt.Time) || dst.UnsubscribeReason != tc.wantReason {
			t.Errorf("%s: %+v, new %v %v", tc.name, dst, b, u)
		}
	}
}

// TestBulkClassifier: each item is created, updated (its key matches an existing channel or
// it names an existing contact) or invalid (no key, an unknown contact, or a key an earlier
// item of the same request already used), in request order within each class.
func TestBulkClassifier(t *testing.T) {
	t.Parallel()
	ref := ChannelRef{ContactID: "ct_old", ChannelID: "ch_old"}
	tx := &fakeTx{missing: []string{"ct_gone"}, matches: ChannelMatches{
		ByUserID: map[string]ChannelRef{"known-user": ref},
		ByEmail:  map[string]ChannelRef{"known@example.com": ref},
		ByPhone:  map[string]ChannelRef{},
	}}
	items := []BulkChannel{
		{Email: "new@example.com"},
		{UserID: "known-user"},
		{Email: "KNOWN@example.com"},
		{Name: "no key at all"},
		{Email: "new@example.com", Name: "the same address again"},
		{ContactID: "ct_gone", Email: "x@example.com"},
		{UserID: "u-2", Phone: "+33 6 12 34 56 78"},
	}
	plan, err := classify(tx, "org_1", items)
	if err != nil {
		t.Fatal(err)
	}
	names := func(l []BulkChannel) string {
		var out []string
		for _, it := range l {
			out = append(out, it.UserID+"|"+it.Email+"|"+it.Name)
		}
		return strings.Join(out, ", ")
	}
	got := fmt.Sprintf("created [%s] updated [%s] invalid [%s] errors %d", names(plan.Created), names(plan.Updated),
		names(plan.Invalid), len(plan.Errors))
	want := "created [|new@example.com|, u-2||] updated [known-user||, |KNOWN@example.com|] " +
		"invalid [||no key at all, |new@example.com|the same address again, |x@example.com|] errors 3"
	if got != want {
		t.Errorf("%s\nwant %s (errors %v)", got, want, plan.Errors)
	}
}

// TestParseInboxFilter: the inbox's query values are checked against their lists, every
// bad one named at once; the member is kept for ASSIGNED_TO_ME.
func TestParseInboxFilter(t *testing.T) {
	t.Parallel()
	cases := []struct {
		query string
		bad   []string
	}{
		{"", nil},
		{"filter=UNREAD&state=ALL&ai_status=ENABLED&csat_max=0", nil},
		{"filter=ASSIGNED_TO_ME&status=ALL&csat_max=5", nil},
		{"filter=MINE", []string{"filter"}},
		{"state=OPENED&ai_status=ON", []string{"ai_status", "state"}},
		{"csat_max=6", []string{"csat_max"}},
		{"csat_max=-1&integration_id=fax", []string{"csat_max", "integration_id"}},
		{"csat_max=two&status=DONE", []string{"csat_max", "status"}},
	}
	for _, tc := range cases {
		q := map[string]string{}
		for _, kv := range strings.Split(tc.query, "&") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				q[k] = v
			}
		}
		f, err := ParseInboxFilter(func(k string) string { return q[k] }, "mem_1")
		var fields []string
		if e, ok := AsError(err); ok {
			for k := range e.Fields {
				fields = append(fields, k)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if fmt.Sprint(slices.Sorted(slices.Values(fields))) != fmt.Sprint(tc.bad) {
			t.Errorf("%q: bad fields %v, want %v", tc.query, fields, tc.bad)
		}
		if err == nil && (f.MemberID != "mem_1" || f.Filter != q["filter"]) {
			t.Errorf("%q: filter %+v", tc.query, f)
		}
	}
}
