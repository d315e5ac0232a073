package api

import "testing"

// TestStorableAnswers: which first answers an Idempotency-Key keeps (Stripe's rule: results
// incl. validation errors, not 5xx; and not 409/429, which say "not now").
func TestStorableAnswers(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]bool{200: true, 201: true, 204: true, 400: true, 403: true, 404: true,
		413: true, 409: false, 429: false, 500: false, 503: false, 0: false, 302: false} {
		if got := storable(status); got != want {
			t.Errorf("storable(%d) = %v, want %v", status, got, want)
		}
	}
}
