package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
)

// The channels page adds Telegram and WhatsApp integrations through the service: each shows
// the status and error the set-up check came back with; WhatsApp shows the callback URL and
// verify token for Meta; no secret is ever shown back. Test connection, disable, enable, a
// new widget key, an edit and delete do what the API's routes do.
func TestAssistantSettingsChannels(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst, asi, _ := settingsFixture(t, e)
	b := signedIn(t, e, e.Owner)
	base := "/app/assistants/" + asst + "/channels"
	b.get(base).expect(t, 200)
	post := func(path string, form url.Values) answer {
		form.Set("csrf", b.csrf)
		return b.do("POST", path, form)
	}
	a := post(base, url.Values{"integration_id": {"telegram"}, "name": {"Bot"}, "secrets.bot_token": {"123:SECRET-token"}}).expect(t, 200)
	tg := deploymentNamed(t, e, asst, "Bot")
	if !strings.Contains(a.Body, `id="ch-`+tg.ID+`"`) || strings.Contains(a.Body, "SECRET-token") {
		t.Fatalf("telegram: listed %v, secret shown %v", strings.Contains(a.Body, tg.ID), strings.Contains(a.Body, "SECRET-token"))
	}
	if tg.Error != nil && !strings.Contains(a.Body, template(*tg.Error)) {
		t.Fatalf("the integration's error %q is not shown", *tg.Error)
	}
	if !strings.Contains(a.Body, `id="status-`+tg.ID+`">`+strings.ToLower(tg.Status)) {
		t.Fatalf("status %s not shown", tg.Status)
	}

	a = post(base, url.Values{"integration_id": {"whatsapp"}, "name": {"WA"}, "config.phone_number_id": {"1055"}, "config.waba_id": {"2077"},
		"secrets.access_token": {"EAAG-secret"}, "secrets.app_secret": {"appsecret-value"}}).expect(t, 200)
	wa := deploymentNamed(t, e, asst, "WA")
	token, _ := wa.Config["verify_token"].(string)
	if token == "" || !strings.Contains(a.Body, `value="`+token+`"`) || !strings.Contains(a.Body, "/hooks/whatsapp/"+wa.ID+`"`) {
		t.Fatalf("whatsapp: verify token %q or webhook URL not shown", token)
	}
	if strings.Contains(a.Body, "EAAG-secret") || strings.Contains(a.Body, "appsecret-value") {
		t.Fatal("a WhatsApp secret is shown back")
	}
	a = post(base+"/"+wa.ID+"/test", url.Values{}).expect(t, 200)
	if !strings.Contains(a.Body, "Connection test of WA: ") {
		t.Fatalf("no test result: %.300s", a.Body[strings.Index(a.Body, "<main"):])
	}

	post(base+"/"+asi+"/enabled", url.Values{"enabled": {"false"}}).expect(t, 200)
	if d := deploymentNamed(t, e, asst, "Site"); d.Enabled {
		t.Fatal("still enabled")
	}
	post(base+"/"+asi+"/enabled", url.Values{"enabled": {"true"}}).expect(t, 200)
	if d := deploymentNamed(t, e, asst, "Site"); !d.Enabled {
		t.Fatal("still disabled")
	}
	a = post(base+"/"+asi+"/rotate", url.Values{}).expect(t, 200)
	key := regexp.MustCompile(`id="secret-key" type="text" readonly value="(wsk_[A-Za-z0-9]+)"`).FindStringSubmatch(a.Body)
	if key == nil {
		t.Fatal("the new key is not shown")
	}
	if ok, _ := e.Runtime.Service.WidgetKeyCurrent(t.Context(), e.Org.ID, asi, key[1]); !ok {
		t.Fatal("the shown key is not the widget's key")
	}
	post(base+"/"+asi, url.Values{"name": {"Site"}, "config.allowed_origins": {"https://shop.example"}, "config.require_identity": {"on"}}).expect(t, 200)
	if d := deploymentNamed(t, e, asst, "Site"); len(d.AllowedOrigins()) != 1 || !d.RequireIdentity() {
		t.Fatalf("edit: %+v", d.Config)
	}
	post(base+"/"+tg.ID+"/delete", url.Values{}).expect(t, http.StatusSeeOther)
	e.Do("GET", "/orgs/c/assistants/"+asst+"/integrations/"+tg.ID, e.AdminKey, nil).Expect(404)
}

// template is s as html/template writes it in a page.
func template(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func deploymentNamed(t *testing.T, e *apitest.Env, asst, name string) app.Deployment {
	t.Helper()
	var ds []app.Deployment
	e.Do("GET", "/orgs/c/assistants/"+asst+"/integrations", e.AdminKey, nil).Expect(200).JSON(&ds)
	for _, d := range ds {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no integration %q", name)
	return app.Deployment{}
}

// upload posts a file as the page's file form does, through htmx (the CSRF header).
func upload(t *testing.T, b *tab, path, name string, data []byte) answer {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fw, _ := w.CreateFormFile("file", name)
	fw.Write(data)
	w.Close()
	req, _ := http.NewRequest("POST", b.e.Server.URL+path, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Origin", b.e.Server.URL)
	req.Header.Set("X-CSRF-Token", b.csrf)
	req.Header.Set("HX-Request", "true")
	res, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(res.Body)
	return answer{Status: res.StatusCode, Header: res.Header, Body: out.String()}
}

// A file the processor cannot read is FAILED with its reason on the page; retry queues it
// again, delete removes it; a file of another type is refused naming the field.
func TestAssistantSettingsKnowledgeFailedRetryDelete(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst, _, _ := settingsFixture(t, e)
	b := signedIn(t, e, e.Owner)
	path := "/app/assistants/" + asst + "/knowledge"
	b.get(path).expect(t, 200)
	a := upload(t, b, path, "broken.pdf", []byte("this is not a pdf"))
	if a.Status != http.StatusNoContent || a.Header.Get("HX-Redirect") != path {
		t.Fatalf("upload: %d %q %.200s", a.Status, a.Header.Get("HX-Redirect"), a.Body)
	}
	var ks []app.KnowledgeContent
	var broken app.KnowledgeContent
	e.Eventually(10*time.Second, "the broken file fails", func() bool {
		e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, nil).Expect(200).JSON(&ks)
		for _, k := range ks {
			if k.Title == "broken.pdf" {
				broken = k
			}
		}
		return broken.Status == "FAILED"
	})
	list := b.get(path+"/list", "HX-Request", "true").expect(t, 200)
	if broken.Error == nil || !strings.Contains(list.Body, template(*broken.Error)) || !strings.Contains(list.Body, "/items/"+broken.ID+"/retry") {
		t.Fatalf("the FAILED reason or retry is not shown: %.1500s", list.Body)
	}
	a = b.htmx("POST", path+"/items/"+broken.ID+"/retry", nil).expect(t, 200)
	if !strings.Contains(a.Body, `id="k-`+broken.ID+`" data-status="PENDING"`) && !strings.Contains(a.Body, `id="k-`+broken.ID+`" data-status="PROCESSING"`) &&
		!strings.Contains(a.Body, `id="k-`+broken.ID+`" data-status="FAILED"`) {
		t.Fatalf("after retry: %.800s", a.Body)
	}
	if !strings.Contains(a.Body, `hx-trigger="every 1s"`) && !strings.Contains(a.Body, `data-status="FAILED"`) {
		t.Fatal("a list with work under way does not poll")
	}
	b.htmx("POST", path+"/items/"+broken.ID+"/delete", nil).expect(t, 200)
	e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents/"+broken.ID, e.AdminKey, nil).Expect(404)

	a = upload(t, b, path, "photo.png", []byte("png"))
	if a.Status != 400 || !strings.Contains(a.Body, "file must be a .txt, .md, .html or .pdf file") {
		t.Fatalf("a png: %d %s", a.Status, a.Body)
	}
}

// The page's bounds are the API's: a file of exactly 10 MiB is taken, one byte more or an
// empty one is refused naming the file; max_pages is taken at the server's limit and refused
// one above it.
func TestAssistantSettingsKnowledgeBounds(t *testing.T) {
	t.Parallel()
	e := apitest.New(t)
	asst, _, _ := settingsFixture(t, e)
	b := signedIn(t, e, e.Owner)
	path := "/app/assistants/" + asst + "/knowledge"
	b.get(path).expect(t, 200)
	if a := upload(t, b, path, "big.pdf", bytes.Repeat([]byte("x"), app.MaxKnowledgeFile)); a.Status != http.StatusNoContent {
		t.Fatalf("10 MiB: %d %.200s", a.Status, a.Body)
	}
	for _, size := range []int{app.MaxKnowledgeFile + 1, 0} {
		if a := upload(t, b, path, "big.pdf", bytes.Repeat([]byte("x"), size)); a.Status != 400 || !strings.Contains(a.Body, "file must be 1 byte to 10 MiB") {
			t.Fatalf("%d bytes: %d %.200s", size, a.Status, a.Body)
		}
	}
	limit := e.Runtime.Service.KnowledgeMaxPages()
	ok := url.Values{"csrf": {b.csrf}, "kind": {"URL"}, "content.url": {"http://127.0.0.1:1/"}, "content.max_pages": {strconv.Itoa(limit)}}
	b.do("POST", path, ok).expect(t, http.StatusSeeOther)
	ok.Set("content.max_pages", strconv.Itoa(limit+1))
	if a := b.do("POST", path, ok).expect(t, 400); !strings.Contains(a.Body, `data-field="content.max_pages"`) {
		t.Fatal("max_pages above the limit is not named")
	}
	var ks []app.KnowledgeContent
	e.Do("GET", "/orgs/c/assistants/"+asst+"/knowledge/contents", e.AdminKey, nil).Expect(200).JSON(&ks)
	if len(ks) != 3 { // the fixture's text, the 10 MiB file, the URL at the limit
		t.Fatalf("%d contents", len(ks))
	}
}
