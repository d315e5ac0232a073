package api

import (
	"testing"

	"wsapi/app"
	"wsapi/app/stream"
)

// TestQueuedDeltasJoin: consecutive pieces of one message queued for a watcher go out as one
// delta with the first piece's offset and all the text; anything else breaks the run.
func TestQueuedDeltasJoin(t *testing.T) {
	d := func(msg string, offset int, text string) stream.Item {
		return stream.Item{Seq: 7, Type: app.StreamMessageDelta, MessageID: msg, Offset: offset, Text: text, Shared: &stream.Encoded{}}
	}
	stored := stream.Item{Seq: 8, Type: app.StreamMessageUpdated, Data: []byte(`{}`)}
	cases := []struct {
		name  string
		queue []stream.Item
		want  []stream.Item // Shared is nil on a joined delta
	}{
		{"one piece stays shared", []stream.Item{d("m", 0, "Hé")}, []stream.Item{d("m", 0, "Hé")}},
		{"three pieces, one delta", []stream.Item{d("m", 0, "Hé"), d("m", 2, "llo, "), d("m", 7, "wörld")},
			[]stream.Item{{Seq: 7, Type: app.StreamMessageDelta, MessageID: "m", Offset: 0, Text: "Héllo, wörld"}}},
		{"a gap is not joined", []stream.Item{d("m", 0, "ab"), d("m", 5, "cd")}, []stream.Item{d("m", 0, "ab"), d("m", 5, "cd")}},
		{"another message", []stream.Item{d("m", 0, "ab"), d("n", 2, "cd")}, []stream.Item{d("m", 0, "ab"), d("n", 2, "cd")}},
		{"a stored event in between", []stream.Item{d("m", 0, "ab"), stored, d("m", 2, "cd"), d("m", 4, "ef")},
			[]stream.Item{d("m", 0, "ab"), stored, {Seq: 7, Type: app.StreamMessageDelta, MessageID: "m", Offset: 2, Text: "cdef"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []stream.Item
			j := joiner{it: c.queue[0]}
			for _, next := range c.queue[1:] {
				if !j.join(next) {
					got = append(got, j.item())
					j = joiner{it: next}
				}
			}
			got = append(got, j.item())
			if len(got) != len(c.want) {
				t.Fatalf("%d items, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				g := got[i]
				if g.Type != w.Type || g.MessageID != w.MessageID || g.Offset != w.Offset || g.Text != w.Text ||
					g.End() != w.End() || (g.Shared == nil) != (w.Shared == nil) {
					t.Errorf("item %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
