package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

type writeResult struct {
	n   int
	err error
}

// writeMessages posts rate messages per second, each into a random chat of chatIDs, through
// the API until stop closes. Every message changes the organization's inbox (order, last
// message, counters), so the inbox cache has to read again after each one.
func writeMessages(do func(method, path, body string) (*http.Response, []byte, error), chatIDs []string, rate float64, stop <-chan struct{}) writeResult {
	if rate <= 0 || len(chatIDs) == 0 {
		<-stop
		return writeResult{}
	}
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	rng := rand.New(rand.NewPCG(7, 7))
	n := 0
	for {
		select {
		case <-stop:
			return writeResult{n: n}
		case <-tick.C:
		}
		text := fmt.Sprintf("bench write %d about the invoice", n)
		body, _ := json.Marshal(map[string]any{"role": "user", "messages": []map[string]any{
			{"role": "user", "parts": []map[string]string{{"type": "text", "text": text}}}}})
		res, data, err := do("POST", "/orgs/c/chats/"+chatIDs[rng.IntN(len(chatIDs))]+"/messages", string(body))
		if err != nil || res.StatusCode != http.StatusCreated {
			return writeResult{n: n, err: fmt.Errorf("post message: %v %.200s", err, data)}
		}
		n++
	}
}

// sampleChats answers up to n chat ids of the seeded organization, at random.
func sampleChats(ctx context.Context, path string, n int) ([]string, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT id FROM chats ORDER BY random() LIMIT ?`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
