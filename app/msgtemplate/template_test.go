package msgtemplate_test

import (
	"strings"
	"testing"

	"wsapi/app/msgtemplate"
)

func problems(t *msgtemplate.Template) map[string]string {
	got := map[string]string{}
	msgtemplate.Check("template", t, func(f, why string) { got[f] = why })
	return got
}

func TestCheckAtTheBounds(t *testing.T) {
	ok := msgtemplate.Template{Name: strings.Repeat("a", 512), Language: "en_US", Components: make([]any, 10)}
	if p := problems(&ok); len(p) != 0 {
		t.Fatalf("512-character name, 10 components: %v", p)
	}
	for _, lang := range []string{"en", "pt_BR", "zh_Hant", "fil"} {
		if p := problems(&msgtemplate.Template{Name: "x", Language: lang}); len(p) != 0 {
			t.Errorf("language %s: %v", lang, p)
		}
	}
	bad := msgtemplate.Template{Name: strings.Repeat("a", 513), Language: "english", Components: make([]any, 11)}
	if p := problems(&bad); len(p) != 3 || p["template.name"] == "" || p["template.language"] == "" || p["template.components"] == "" {
		t.Fatalf("513-character name, bad language, 11 components: %v", p)
	}
	for _, name := range []string{"", "Order", "order-update", "order update"} {
		if p := problems(&msgtemplate.Template{Name: name, Language: "en"}); p["template.name"] == "" {
			t.Errorf("name %q accepted", name)
		}
	}
	if p := problems(nil); p["template"] == "" {
		t.Fatal("a missing template accepted")
	}
}
