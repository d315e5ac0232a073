package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var testStart = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

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
