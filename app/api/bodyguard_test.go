package api_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"wsapi/app/apitest"
	"wsapi/cli"
)

// openRaw opens a connection to the test server and sends head plus a first part of the
// body; it answers the connection and a reader over it.
func openRaw(t *testing.T, e *apitest.Env, head string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", e.Server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return conn, bufio.NewReader(conn)
}

// closedWithin reads the rest of the connection and fails unless the server closes it
// within d.
func closedWithin(t *testing.T, conn net.Conn, br *bufio.Reader, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(d + 2*time.Second))
	if _, err := io.Copy(io.Discard, br); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("connection still open after %s: %v", time.Since(start), err)
	}
	took := time.Since(start)
	if took > d {
		t.Fatalf("connection closed after %s, want within %s", took, d)
	}
	return took
}

// TestRefusedRequestDoesNotWaitForItsBody: a request with a bad token, or none, and a body
// that never arrives is answered at once and its connection closed shortly after, without
// waiting for the body (the server would otherwise drain it until a timeout).
func TestRefusedRequestDoesNotWaitForItsBody(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) { c.HTTP.ReadTimeout = time.Minute })
	for _, auth := range []string{"Authorization: Bearer sk_nope\r\n", ""} {
		conn, br := openRaw(t, e, "POST /orgs/c/members HTTP/1.1\r\nHost: x\r\n"+auth+
			"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 401 || !strings.Contains(string(body), "unauthenticated") || !res.Close {
			t.Fatalf("answer %d close=%v %s", res.StatusCode, res.Close, body)
		}
		closedWithin(t, conn, br, 2*time.Second)
	}
}

// TestSlowBodyIsCut: an authenticated request whose body trickles slower than the body
// deadline allows (read_timeout plus its size at min_body_rate) is answered 408 at the
// deadline and its connection closed; a body that keeps the minimum rate gets through, and one read in
// full keeps its connection for the next request.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	e := apitest.New(t, func(c *cli.Config) {
		c.HTTP.ReadTimeout = 300 * time.Millisecond
		c.HTTP.MinBodyRate = 1000 // bytes a second
	})
	// 100 bytes declared: a deadline of 300 ms + 100 ms; one byte sent.
	head := "POST /orgs/c/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + e.AdminKey +
		"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
	start := time.Now()
	conn, br := openRaw(t, e, head)
	_ = conn.SetReadDeadline(start.Add(5 * time.Second))
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	data, _ := io.ReadAll(res.Body)
	if took := time.Since(start); res.StatusCode != 408 || !strings.Contains(string(data), "request_timeout") ||
		!res.Close || took < 400*time.Millisecond || took > 2*time.Second {
		t.Fatalf("after %s: %d close=%v %s", took, res.StatusCode, res.Close, data)
	}
	closedWithin(t, conn, br, time.Second)

	// 600 bytes sent over ~700 ms, about 860 bytes a second: within 300 ms + 600 ms.
	body := `{"name":"Steady Uploader","email":"steady@example.com","avatar":"https://example.com/"}`
	body = strings.Replace(body, `com/"`, "com/"+strings.Repeat("a", 600-len(body))+`"`, 1)
	if len(body) != 600 {
		t.Fatalf("body is %d bytes", len(body))
	}
	conn, br = openRaw(t, e, strings.Replace(head, "Content-Length: 100\r\n\r\n{", fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)), 1))
	for i := 0; i < len(body); i += 100 {
		time.Sleep(100 * time.Millisecond)
		if _, err := io.WriteString(conn, body[i:i+100]); err != nil {
			t.Fatal(err)
		}
	}
	res, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ = io.ReadAll(res.Body)
	if res.StatusCode != 201 || res.Close {
		t.Fatalf("steady upload: %d close=%v %s", res.StatusCode, res.Close, data)
	}
	// The connection stays usable: the body was read to its end.
	if _, err := io.WriteString(conn, "GET /orgs/c HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+e.AdminKey+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err = http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("second request on the connection: %v %v", res, err)
	}
	res.Body.Close()
}
