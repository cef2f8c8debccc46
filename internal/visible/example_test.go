package visible_test

import (
	"fmt"
	"strings"

	"github.com/airlockrt/airlock/internal/visible"
)

func ExampleString() {
	fmt.Println(visible.String("{\"file\":\"invoice\u202egnp.exe\",\"note\":\"ok" + strings.Repeat(" ", 500) + "bcc: evil\"}"))
	// Output: {"file":"invoice\u202egnp.exe","note":"ok⟨500 spaces⟩bcc: evil"}
}

func ExampleBounded() {
	text, omitted := visible.Bounded(`{"text":"a long message"}`, 12)
	fmt.Printf("%s⟨%d more bytes not shown⟩\n", text, omitted)
	// Output: {"text":"a l⟨13 more bytes not shown⟩
}
