package email

import (
	"context"
	"testing"
	"time"
)

// TestSharesBoundAnIntegration: takeShare mails of one integration are taken in at once;
// the next waits for a slot (or its context), another integration's does not.
func TestSharesBoundAnIntegration(t *testing.T) {
	t.Parallel()
	var s shares
	ctx := context.Background()
	var releases []func()
	for range takeShare {
		r, err := s.acquire(ctx, "asi_a")
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	if r, err := s.acquire(ctx, "asi_b"); err != nil {
		t.Fatalf("another integration waited: %v", err)
	} else {
		r()
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.acquire(short, "asi_a"); err == nil {
		t.Fatalf("a slot past the share of %d", takeShare)
	}
	got := make(chan error, 1)
	go func() {
		r, err := s.acquire(ctx, "asi_a")
		if err == nil {
			r()
		}
		got <- err
	}()
	releases[0]()
	if err := <-got; err != nil {
		t.Fatalf("a freed slot was not taken: %v", err)
	}
}
