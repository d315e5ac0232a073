package main

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// hookBuckets reads, from the server's own metrics (metrics.addr), how many hook requests took
// at most each bucket's bound (seconds): the server's share of the acknowledgement, without
// the poster's or the scheduler's before the request was read.
func hookBuckets(metricsAddr string) (map[string]float64, error) {
	res, err := http.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "wsapi_http_request_duration_seconds_bucket{") ||
			!strings.Contains(line, `route="/hooks/{type}/{asi}"`) || !strings.Contains(line, `method="post"`) {
			continue
		}
		i, j := strings.Index(line, `le="`), strings.LastIndex(line, " ")
		if i < 0 || j < i {
			continue
		}
		le := line[i+4 : i+4+strings.Index(line[i+4:], `"`)]
		n, err := strconv.ParseFloat(line[j+1:], 64)
		if err != nil {
			return nil, err
		}
		out[le] += n
	}
	return out, sc.Err()
}

// insideShare says what share of the hook requests between two readings the server answered
// within 5 and 10 ms.
func insideShare(before, after map[string]float64) string {
	total := after["+Inf"] - before["+Inf"]
	if total <= 0 {
		return "no hook requests in the server's metrics"
	}
	pct := func(le string) float64 { return 100 * (after[le] - before[le]) / total }
	return fmt.Sprintf("inside the server (its request-duration histogram): %.2f%% within 5 ms, %.2f%% within 10 ms, %.2f%% within 25 ms",
		pct("0.005"), pct("0.01"), pct("0.025"))
}
