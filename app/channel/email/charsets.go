package email

import (
	"github.com/emersion/go-message/charset"
	"golang.org/x/text/encoding/charmap"
)

// Mail labelled ISO-8859-1 is, in practice, Windows-1252: Outlook and most Windows clients
// send curly quotes, dashes and the euro sign (0x80-0x9f) under the Latin-1 label, which as
// ISO-8859-1 would become invisible control characters. The WHATWG Encoding Standard, which
// browsers follow, reads these labels as Windows-1252 for the same reason (a superset of
// Latin-1's printable characters, so true Latin-1 reads the same).
func init() {
	for _, label := range []string{"iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1", "cp819", "ibm819",
		"iso-ir-100", "csisolatin1", "iso_8859-1:1987"} {
		charset.RegisterEncoding(label, charmap.Windows1252)
	}
}
