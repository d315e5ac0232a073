package api

import (
	"math"
	"net/http"
	"strconv"

	"wsapi/app"
)

// maxPage bounds page so that the row offset, (page-1)*take, cannot overflow and wrap round
// to the first page.
const maxPage = math.MaxInt32

// pageOf reads page (>= 1, default 1) and take (1..100, default 100). Out of range is a 400,
// never silently cut; a bad value leaves its default in the page.
func pageOf(r *http.Request) (app.Page, app.Problems) {
	p := app.Page{Page: 1, Take: app.MaxTake}
	q := r.URL.Query()
	problems := app.Problems{}
	if v := q.Get("page"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > maxPage {
			problems.Add("page", "must be a whole number from 1 to "+strconv.Itoa(maxPage))
		} else {
			p.Page = n
		}
	}
	if v := q.Get("take"); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > app.MaxTake {
			problems.Add("take", "must be a whole number from 1 to 100")
		} else {
			p.Take = n
		}
	}
	return p, problems
}

// writeList answers one page with the four pagination headers.
func writeList[T any](w http.ResponseWriter, p app.Page, l app.List[T]) {
	setListHeaders(w, p, l.Total, l.Next)
	items := l.Items
	if items == nil {
		items = []T{}
	}
	writeJSON(w, http.StatusOK, items)
}
