package statuswriter

import "net/http"

// Recorder remembers the first status written through it; Unwrap keeps Flush and write
// deadlines working for streams (http.ResponseController).
type Recorder struct {
	http.ResponseWriter
	Status int
}

// WriteHeader records code unless a status was already written.
func (w *Recorder) WriteHeader(code int) {
	if w.Status == 0 {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write records 200 when nothing was written before.
func (w *Recorder) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap answers the writer underneath.
func (w *Recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
