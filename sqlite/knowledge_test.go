package sqlite_test

import (
	"fmt"
	"slices"
	"testing"

	"wsapi/app"
	"wsapi/sqlite"
)

// knowledge is a content of an assistant created at sec.
func knowledge(org, asst, id, typ, status string, sec int) app.KnowledgeContent {
	k := app.KnowledgeContent{ID: id, OrgID: org, AssistantID: asst, Type: typ, Title: "Title " + id, Status: status,
		Content: app.KnowledgeBody{Type: typ, Text: "text"}, CreatedAt: at(sec), UpdatedAt: at(sec)}
	if typ == "URL" {
		k.Content = app.KnowledgeBody{Type: typ, URL: "https://docs.example.com/" + id}
	}
	return k
}

// knowledgeScene writes an assistant's contents: a URL page with two crawled children, a
// FILE with its bytes and two TEXTs that share their created_at.
func knowledgeScene(t *testing.T, db *sqlite.DB) string {
	t.Helper()
	org := newOrg(t, db, "org_k", "", 0).ID
	write(t, db, func(tx app.Tx) error {
		parent := "kc_url"
		child := func(id string, sec int) app.KnowledgeContent {
			k := knowledge(org, "asst_1", id, "URL", "READY", sec)
			k.ParentContentID = &parent
			return k
		}
		file := knowledge(org, "asst_1", "kc_file", "FILE", "READY", 2)
		file.Data, file.Title = []byte("%PDF"), "Handbook_v2"
		return firstErr(tx.CreateAssistant(app.Assistant{ID: "asst_1", OrgID: org, Name: "A", CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.CreateKnowledge(knowledge(org, "asst_1", "kc_url", "URL", "PROCESSING", 1)),
			tx.CreateKnowledge(child("kc_url_b", 4)), tx.CreateKnowledge(child("kc_url_a", 3)),
			tx.CreateKnowledge(file),
			tx.CreateKnowledge(knowledge(org, "asst_1", "kc_t1", "TEXT", "PENDING", 5)),
			tx.CreateKnowledge(knowledge(org, "asst_1", "kc_t2", "TEXT", "FAILED", 5)))
	})
	return org
}

// TestKnowledgeListAndChildren: a URL content answers its crawled pages as children (never
// as top-level items); the list filters by title or URL, type and status; a cursor walks
// it newest first through a tie on created_at, also from a content deleted since.
func TestKnowledgeListAndChildren(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := knowledgeScene(t, db)
	// list answers one page as ids, each followed by its children's ids when it has children
	// (a URL content), and the cursor of its last item.
	list := func(f app.KnowledgeFilter, after *app.KnowledgeCursor, limit int) (ids []string, total int, next *app.KnowledgeCursor) {
		read(t, db, func(tx app.Tx) error {
			ks, n, err := tx.ListKnowledge(org, "asst_1", f, after, 0, limit)
			for _, k := range ks {
				id := k.ID
				if k.Children != nil {
					id += fmt.Sprint(idsOf(k.Children, func(c app.KnowledgeContent) string { return c.ID }))
				}
				ids = append(ids, id)
				next = &app.KnowledgeCursor{CreatedAt: k.CreatedAt.String(), ID: k.ID}
			}
			total = n
			return err
		})
		return ids, total, next
	}
	cases := []struct {
		name string
		f    app.KnowledgeFilter
		want string
	}{
		{"all", app.KnowledgeFilter{Type: "ALL", Status: "ALL"}, "[kc_t2 kc_t1 kc_file kc_url[kc_url_a kc_url_b]]"},
		{"title, literally", app.KnowledgeFilter{Search: "_v2"}, "[kc_file]"},
		{"url", app.KnowledgeFilter{Search: "docs.example"}, "[kc_url[kc_url_a kc_url_b]]"},
		{"type", app.KnowledgeFilter{Type: "TEXT"}, "[kc_t2 kc_t1]"},
		{"status", app.KnowledgeFilter{Status: "FAILED"}, "[kc_t2]"},
		{"none", app.KnowledgeFilter{Search: "zzz"}, "[]"},
	}
	for _, c := range cases {
		ids, total, _ := list(c.f, nil, 10)
		if fmt.Sprint(ids) != c.want || total != len(ids) {
			t.Errorf("%s: %v total %d, want %s", c.name, ids, total, c.want)
		}
	}
	var walked []string
	var after *app.KnowledgeCursor
	for range 5 {
		ids, total, next := list(app.KnowledgeFilter{}, after, 2)
		if total != 4 {
			t.Fatalf("total %d", total)
		}
		if len(ids) == 0 {
			break
		}
		walked, after = append(walked, ids...), next
	}
	if fmt.Sprint(walked) != "[kc_t2 kc_t1 kc_file kc_url[kc_url_a kc_url_b]]" {
		t.Errorf("walked %v", walked)
	}
	write(t, db, func(tx app.Tx) error { return tx.DeleteKnowledge(org, "asst_1", "kc_t1") })
	if ids, _, _ := list(app.KnowledgeFilter{}, &app.KnowledgeCursor{CreatedAt: at(5).String(), ID: "kc_t1"}, 5); fmt.Sprint(ids) != "[kc_file kc_url[kc_url_a kc_url_b]]" {
		t.Errorf("after a deleted content: %v", ids)
	}
	read(t, db, func(tx app.Tx) error {
		data, err := tx.GetKnowledgeData("kc_file")
		if err != nil || string(data) != "%PDF" {
			t.Errorf("file data %q (%v)", data, err)
		}
		_, err1 := tx.GetKnowledgeData("kc_t2")
		_, err2 := tx.GetKnowledge(org, "asst_other", "kc_file")
		if code(err1) != "not_found" || code(err2) != "not_found" {
			t.Errorf("data of a text %v; content of another assistant %v", err1, err2)
		}
		return nil
	})
	if err := db.Write(bg, func(tx app.Tx) error { return tx.DeleteKnowledge(org, "asst_1", "kc_t1") }); code(err) != "not_found" {
		t.Errorf("second deletion: %v", err)
	}
}

// TestKnowledgeChunksAndProgress: chunks (more than one insert batch) are searchable by
// word, best first, within their assistant; progress writes round-trip and a status other
// than PROCESSING drops the lease; a reset removes chunks and crawled children; a lapsed
// lease makes a content claimable again, a live one does not.
func TestKnowledgeChunksAndProgress(t *testing.T) {
	t.Parallel()
	db, _ := openDB(t)
	org := knowledgeScene(t, db)
	texts := make([]string, 620)
	for i := range texts {
		texts[i] = fmt.Sprintf("filler paragraph number %d", i)
	}
	texts[7] = "refund policy: refund within thirty days"
	texts[600] = "a refund is mentioned once in this much longer paragraph about shipping, packaging and opening hours"
	write(t, db, func(tx app.Tx) error {
		k, err := tx.GetKnowledge(org, "asst_1", "kc_t1")
		if err != nil {
			return err
		}
		if err := tx.AddChunks(k, 0, texts); err != nil {
			return err
		}
		other := k
		other.AssistantID = "asst_2"
		return firstErr(tx.CreateAssistant(app.Assistant{ID: "asst_2", OrgID: org, Name: "B", CreatedAt: at(0), UpdatedAt: at(0)}),
			tx.AddChunks(other, 0, []string{"refund refund refund"}))
	})
	read(t, db, func(tx app.Tx) error {
		hits, err := tx.SearchChunks(org, "asst_1", "refund", 5)
		pos := idsOf(hits, func(c app.Chunk) string { return fmt.Sprint(c.Position) })
		if err != nil || !slices.Equal(pos, []string{"7", "600"}) || hits[0].Score <= 0 || hits[0].Score < hits[1].Score || hits[0].Title != "Title kc_t1" {
			t.Errorf("hits %+v (%v)", hits, err)
		}
		if hits, err := tx.SearchChunks(org, "asst_1", "paragraph", 3); err != nil || len(hits) != 3 {
			t.Errorf("a limit of 3 answered %d (%v)", len(hits), err)
		}
		return nil
	})
	write(t, db, func(tx app.Tx) error {
		k, err := tx.GetKnowledge(org, "asst_1", "kc_t1")
		if err != nil {
			return err
		}
		k.Status, k.ChunksCount, k.ChunksProcessed, k.Size, k.UpdatedAt = "READY", 620, 620, 12345, at(50)
		return firstErr(tx.SetKnowledgeProgress(k), tx.ResetKnowledge("kc_url"))
	})
	read(t, db, func(tx app.Tx) error {
		k, err := tx.GetKnowledge(org, "asst_1", "kc_t1")
		if err != nil || k.Status != "READY" || k.ChunksProcessed != 620 || k.Size != 12345 {
			t.Errorf("progress %+v (%v)", k, err)
		}
		u, err := tx.GetKnowledge(org, "asst_1", "kc_url")
		if err != nil || u.Children == nil || len(u.Children) != 0 || u.ChunksCount != 0 {
			t.Errorf("reset URL content %+v (%v)", u, err)
		}
		if hits, err := tx.SearchChunks(org, "asst_1", "refund", 5); err != nil || len(hits) != 2 {
			t.Errorf("another content's reset took these chunks: %v (%v)", hits, err)
		}
		return nil
	})
	if err := db.Write(bg, func(tx app.Tx) error {
		return tx.SetKnowledgeProgress(knowledge(org, "asst_1", "kc_none", "TEXT", "READY", 0))
	}); code(err) != "not_found" {
		t.Errorf("progress of a missing content: %v", err)
	}
	claim := func(now, lease int) (ids []string) {
		write(t, db, func(tx app.Tx) error {
			ks, err := tx.ClaimKnowledge(at(now), at(lease), app.ClaimRoom{Limit: 10})
			ids = idsOf(ks, func(k app.KnowledgeContent) string { return k.ID })
			return err
		})
		return ids
	}
	// Nothing is PENDING now (kc_t1 is READY, kc_t2 FAILED) and kc_url is PROCESSING under no
	// lease of a claim: nothing to claim.
	if got := claim(100, 200); fmt.Sprint(got) != "[]" {
		t.Fatalf("first claim %v", got)
	}
	write(t, db, func(tx app.Tx) error {
		k := knowledge(org, "asst_1", "kc_new", "TEXT", "PENDING", 60)
		return tx.CreateKnowledge(k)
	})
	if got := claim(100, 200); fmt.Sprint(got) != "[kc_new]" {
		t.Fatalf("claim of a new content %v", got)
	}
	if got := claim(150, 300); len(got) != 0 {
		t.Errorf("claimed under a live lease: %v", got)
	}
	if got := claim(200, 300); fmt.Sprint(got) != "[kc_new]" {
		t.Errorf("a lapsed lease is not claimable again: %v", got)
	}
}
