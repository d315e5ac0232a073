package clock

import (
	"encoding/json"
	"testing"
	"time"
)

func TestTimeJSON(t *testing.T) {
	at := At(time.Date(2026, 11, 23, 4, 5, 6, 789_123_456, time.FixedZone("CET", 3600)))
	v := struct {
		Set   Time  `json:"set"`
		Zero  Time  `json:"zero"`
		Ptr   *Time `json:"ptr"`
		Whole Time  `json:"whole"`
	}{Set: at, Ptr: at.Ptr(), Whole: At(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"set":"2026-11-23T03:05:06.789Z","zero":null,"ptr":"2026-11-23T03:05:06.789Z","whole":"2026-01-02T03:04:05.000Z"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	var back struct{ Set, Zero Time }
	if err := json.Unmarshal(b, &back); err != nil || !back.Set.Equal(at.Time) || !back.Zero.IsZero() {
		t.Fatalf("round trip: %v %v %v", back.Set, back.Zero, err)
	}
}
