package api

import (
	"compress/gzip"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// compress answers JSON bodies over 1 KiB with zstd or gzip, as the client's Accept-Encoding
// prefers (klauspost/compress gzhttp). Event streams are never compressed: a compressor
// holds back small writes, and an SSE client must get each event when it is flushed, so a
// request that asks for text/event-stream, or to a .../stream route, bypasses the wrapper.
func (s *Server) compress(next http.Handler) http.Handler {
	if !s.cfg.Ops.Compress {
		return next
	}
	// BestSpeed: at the default level, compressing the inbox's 100-chat pages was 36% of the
	// CPU of bench/inbox's main view; level 1 costs about a third of that and JSON still
	// shrinks several times over.
	wrapper, err := gzhttp.NewWrapper(gzhttp.MinSize(compressMin), gzhttp.ContentTypes([]string{"application/json"}),
		gzhttp.CompressionLevel(compressLevel))
	if err != nil {
		panic("api: gzhttp options: " + err.Error()) // fixed options above; cannot fail
	}
	compressed := wrapper(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isEventStream(r) {
			next.ServeHTTP(w, r)
			return
		}
		compressed.ServeHTTP(w, r)
	})
}

// compressMin is the size under which an answer goes uncompressed; compressLevel the gzip
// level (inboxpages.go keeps pages compressed the same way).
const (
	compressMin   = 1024
	compressLevel = gzip.BestSpeed
)

func isEventStream(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/event-stream") || strings.HasSuffix(r.URL.Path, "/stream")
}

// Flush lets a handler flush through the request log's recorder even with a plain
// http.Flusher assertion, as gzhttp and promhttp's wrappers make; an event stream depends on it.
func (w *statusRecorder) Flush() {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}
