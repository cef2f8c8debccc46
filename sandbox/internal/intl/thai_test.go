package intl

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
)

// thaiWords is a vocabulary of common Thai words (news, daily life,
// function words) from which the Node comparison composes sentences.
var thaiWords = strings.Fields(`
ผม คุณ เขา เรา พวกเรา ฉัน ไป มา กิน ข้าว น้ำ บ้าน โรงเรียน นักเรียน ครู ประเทศ ไทย
ภาษา รัฐบาล นายกรัฐมนตรี ประชาชน เศรษฐกิจ การ ทำงาน วันนี้ พรุ่งนี้ เมื่อวาน
กรุงเทพมหานคร ตลาด ซื้อ ขาย ราคา สูง ต่ำ ดี มาก น้อย และ หรือ แต่ ที่ ของ ใน กับ จะ
ได้ ไม่ มี เป็น อยู่ ว่า ให้ แล้ว ความ สุข รัก เพื่อน ครอบครัว เด็ก ผู้ใหญ่ รถยนต์
ถนน ฝน ตก หนัก อากาศ ร้อน เย็น ข่าว รายงาน ตำรวจ จับกุม ผู้ต้องหา โรงพยาบาล แพทย์
ผู้ป่วย วัคซีน การศึกษา มหาวิทยาลัย เทคโนโลยี คอมพิวเตอร์ โทรศัพท์ อินเทอร์เน็ต
บริษัท ธนาคาร เงิน ลงทุน ตลาดหุ้น เลือกตั้ง พรรค การเมือง สภา กฎหมาย ประกาศ กระทรวง
สาธารณสุข ท่องเที่ยว นักท่องเที่ยว ทะเล ภูเขา อาหาร อร่อย สวย ใหญ่ เล็ก ช้า เร็ว
วัด พระ ทำบุญ เดินทาง สนามบิน เครื่องบิน รถไฟ ช่วง ระหว่าง เพราะ ดังนั้น
อย่างไรก็ตาม นอกจากนี้ กล่าว ระบุ เปิดเผย เมื่อ วันที่ เดือน ปี สัปดาห์ ชั่วโมง นาที
สำหรับ โดย จาก ถึง เพื่อ ต้อง ควร อาจ กำลัง เคย ยัง ทุก หลาย บาง คน สิ่ง เรื่อง
ปัญหา แก้ไข พัฒนา สนับสนุน โครงการ ผู้ว่าราชการ จังหวัด เชียงใหม่ ภูเก็ต ขอนแก่น
น้ำท่วม ภัยแล้ง เกษตรกร ชาวนา ข้าวโพด ยางพารา ส่งออก นำเข้า ผลิต สินค้า บริการ
ลูกค้า พนักงาน ผู้บริหาร ประชุม ตัดสินใจ นโยบาย ภาษี งบประมาณ เพิ่มขึ้น ลดลง
ร้อยละ ล้าน บาท ดอลลาร์ ฟุตบอล ทีมชาติ แข่งขัน ชนะ แพ้ นักกีฬา เหรียญทอง ดนตรี
ภาพยนตร์ หนังสือ อ่าน เขียน ฟัง พูด เห็น รู้ เข้าใจ คิด ชอบ อยาก สวัสดี ขอบคุณ
ครับ ค่ะ นะ จ้ะ ไหม อะไร ที่ไหน เมื่อไร ทำไม อย่างไร ใคร เท่าไร สบายดี
`)

// thaiPhrases are fixed inputs: news-like sentences, reduplication with
// maiyamok, abbreviation with paiyannoi, names and made-up words the
// dictionary lacks, and Thai mixed with Latin, digits and punctuation.
var thaiPhrases = []string{
	"ภาษาไทยเป็นภาษาที่สวยงาม",
	"นายกรัฐมนตรีกล่าวว่ารัฐบาลจะสนับสนุนเกษตรกรทั่วประเทศ",
	"กระทรวงสาธารณสุขรายงานว่ามีผู้ป่วยเพิ่มขึ้นร้อยละสิบ",
	"ตำรวจจับกุมผู้ต้องหาได้ที่สนามบินสุวรรณภูมิเมื่อวานนี้",
	"ตลาดหุ้นไทยปิดตลาดวันนี้ปรับตัวลดลงเล็กน้อย",
	"นักท่องเที่ยวต่างชาติเดินทางมาเที่ยวภูเก็ตเพิ่มขึ้น",
	"ฝนตกหนักทำให้เกิดน้ำท่วมในหลายจังหวัดทางภาคเหนือ",
	"มหาวิทยาลัยเปิดรับสมัครนักศึกษาใหม่ประจำปีการศึกษา",
	"ธนาคารแห่งประเทศไทยคงอัตราดอกเบี้ยนโยบายไว้ที่เดิม",
	"ทีมชาติไทยชนะการแข่งขันฟุตบอลนัดสำคัญเมื่อคืนนี้",
	"เด็กๆ วิ่งเล่นกันอยู่ในสนาม",
	"เด็กๆวิ่งเล่นกันอยู่ในสนาม",
	"ค่อยๆ เดินไปช้าๆ",
	"ค่อยๆเดินไปช้าๆนะ",
	"ไปๆมาๆ",
	"ดีๆๆ",
	"ต่างๆนานา",
	"บ่อยๆครั้ง",
	"เร็วๆนี้จะมีข่าวดี",
	"กรุงเทพฯ",
	"กรุงเทพฯเป็นเมืองหลวง",
	"ผลไม้ เช่น มะม่วง มะละกอ ฯลฯ",
	"มะม่วงมะละกอฯลฯ",
	"ฯพณฯนายกรัฐมนตรี",
	"พระบาทสมเด็จพระเจ้าอยู่หัวฯทรงพระกรุณา",
	"สวัสดีครับ",
	"ขอบคุณมากค่ะ",
	"สบายดีไหมครับ",
	"คุณชื่ออะไรคะ",
	"ผมชื่อสมชายนามสกุลใจดี",
	"นางสาวณัฐพงศ์กิตติศักดิ์ศรีสุข",
	"กขฃคฅฆงจฉชซฌญฎฏฐฑฒณดตถทธนบปผฝพฟภมยรฤลฦวศษสหฬอฮ",
	"ฮฮฮฮฮฮฮฮ",
	"ฟหกดเ้่าสวงฟหกด",
	"ปปปปปปปป",
	"ก็",
	"ก็ได้",
	"ทำไมก็ไม่รู้",
	"ไม่รู้ไม่ชี้",
	"ราคา 1,250 บาท ต่อคนต่อคืน",
	"ราคา1,250บาทต่อคนต่อคืน",
	"ใช้ iPhone 15 Pro ถ่ายภาพสวยมาก",
	"ใช้iPhone15Proถ่ายภาพสวยมาก",
	"Bangkok (กรุงเทพมหานคร) is the capital.",
	"วันที่ 12 มกราคม 2567 เวลา 10:30 น.",
	"\"สวัสดีปีใหม่\" เขากล่าว",
	"ประชุมครั้งที่๓/๒๕๖๗",
	"email: test@example.com ติดต่อได้ตลอดเวลา",
	"โครงการพัฒนาเทคโนโลยีสารสนเทศเพื่อการศึกษา",
	"การเลือกตั้งสมาชิกสภาผู้แทนราษฎรครั้งต่อไป",
	"อินเทอร์เน็ตความเร็วสูงครอบคลุมทุกหมู่บ้าน",
	"เกษตรกรชาวนาปลูกข้าวหอมมะลิส่งออกต่างประเทศ",
	"สำนักงานคณะกรรมการการเลือกตั้ง",
	"ข้าวมันไก่ร้านนี้อร่อยที่สุดในซอย",
	"ฉันรักเธอ",
	"เธอรักฉันไหม",
	"นี่คือการทดสอบระบบตัดคำภาษาไทย",
	"ระบบตัดคำภาษาไทยของไอซียู",
	"คอมพิวเตอร์โน้ตบุ๊กรุ่นใหม่ราคาถูกลง",
	"ยางพาราราคาตกต่ำเกษตรกรเดือดร้อน",
	"ก่อนหน้านี้ไม่เคยมีใครทำได้มาก่อน",
	"ถึงแม้ว่าจะเหนื่อยแต่ก็ต้องทำต่อไป",
	"เนื่องจากสถานการณ์โควิดทำให้ต้องเลื่อนการเดินทาง",
	"ไข่ไก่ไข่เป็ดไข่นก",
	"หนังสือพิมพ์รายวันฉบับวันอาทิตย์",
	"ศาสตราจารย์ดร.สมศักดิ์",
	"ทะเลสาบสงขลา",
	"น้ำตกเอราวัณกาญจนบุรี",
	"แม่น้ำเจ้าพระยาไหลผ่านกรุงเทพ",
	"ประเทศไทยมีเจ็ดสิบเจ็ดจังหวัด",
	"ผู้ว่าราชการจังหวัดเชียงใหม่ประกาศเขตภัยพิบัติ",
	"สถาบันการเงินระหว่างประเทศคาดการณ์เศรษฐกิจโลก",
	"วัคซีนป้องกันโรคไข้หวัดใหญ่",
	"ทดสอบ\u200bคำ",
	"ไทย😀ไทยไทยไทย",
	"ฯ",
	"ๆ",
	"ๆๆๆๆๆ",
	"ฯฯฯฯฯ",
	"กฯๆกฯๆกฯๆ",
	"บ้านๆฯลฯ",
	"สวัสดีฯๆครับ",
	"เเเเเเ",
	"ไำไำไำไำ",
	"ี่ี่ี่ี่",
	"กี่ี่ี่ี่",
	"นักเรียนนักศึกษานักกีฬานักท่องเที่ยว",
	"ตากลม",
	"ตากลมตากลม",
	"มากมายหลายอย่าง",
	"abัการเมืองไทย",
	"1ัการเมืองไทย",
	"(ัการเมืองไทย",
	"ไทย ัการเมืองไทย",
	"ัการเมืองไทย",
}

// thaiComposed and thaiSoup are how many composed sentences and random
// strings thaiCorpus makes.
var thaiComposed, thaiSoup = 400, 150

// thaiCorpus returns the Node comparison's inputs: the fixed phrases,
// sentences composed from thaiWords (some with spaces, maiyamok,
// paiyannoi, digits or Latin between words, some with a word misspelt)
// and strings of random run characters.
func thaiCorpus() []string {
	rng := rand.New(rand.NewPCG(23, 0x7a1))
	out := slices.Clone(thaiPhrases)
	extras := []string{" ", "ๆ", "ฯ", "ๆ ", " 2567 ", "ABC", ", ", "!", "ฯลฯ", "\n", "๑๒๓", "฿"}
	for i := range thaiComposed {
		var b strings.Builder
		n := 2 + rng.IntN(12)
		if i%4 == 0 {
			n = 30 + rng.IntN(40) // a paragraph
		}
		for range n {
			w := thaiWords[rng.IntN(len(thaiWords))]
			if rng.IntN(12) == 0 {
				// A misspelling: drop, double or swap one code point.
				r := []rune(w)
				i := rng.IntN(len(r))
				switch rng.IntN(3) {
				case 0:
					r = slices.Delete(r, i, i+1)
				case 1:
					r = slices.Insert(r, i, r[i])
				default:
					j := rng.IntN(len(r))
					r[i], r[j] = r[j], r[i]
				}
				w = string(r)
			}
			b.WriteString(w)
			if rng.IntN(6) == 0 {
				b.WriteString(extras[rng.IntN(len(extras))])
			}
		}
		out = append(out, b.String())
	}
	// Half of the random strings draw from a small alphabet heavy in
	// paiyannoi, maiyamok and marks, where the suffix rules fire often.
	small := []rune("กคนมรสอาเแไๆๆฯฯ่้ัิ็์")
	for i := range thaiSoup {
		r := make([]rune, 1+rng.IntN(40))
		for k := range r {
			if i%2 == 0 {
				r[k] = randomThaiRune(rng)
			} else {
				r[k] = small[rng.IntN(len(small))]
			}
		}
		if i%3 == 0 {
			// Something before the run, for runs that begin with marks.
			out = append(out, soupPrefixes[rng.IntN(len(soupPrefixes))]+string(r))
			continue
		}
		out = append(out, string(r))
	}
	return out
}

// soupPrefixes go before some random runs: letters and digits (which
// ICU's word rules chain with Thai), spaces, punctuation, a symbol.
var soupPrefixes = []string{"a", "ab", "1", "๑", "(", " ", "x ", "฿", "\"", "-", "ไทย "}

// thaiRunes lists the isThaiDict code points.
var thaiRunes = func() []rune {
	var rs []rune
	for r := rune(0x0e00); r <= 0x0e7f; r++ {
		if isThaiDict(r) {
			rs = append(rs, r)
		}
	}
	return rs
}()

// randomThaiRune returns a random run character, mostly consonants and
// vowels, sometimes a mark, paiyannoi or maiyamok.
func randomThaiRune(rng *rand.Rand) rune {
	return thaiRunes[rng.IntN(len(thaiRunes))]
}

// thaiRuns returns the [start, end) rune offsets of the maximal runs of
// isThaiDict characters of rs.
func thaiRuns(rs []rune) [][2]int {
	var runs [][2]int
	for i := 0; i < len(rs); {
		if !isThaiDict(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isThaiDict(rs[j]) {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	return runs
}

const thaiNode = `
const ss = JSON.parse(require("fs").readFileSync(0, "utf8"));
const seg = new Intl.Segmenter("th", { granularity: "word" });
process.stdout.write(JSON.stringify(ss.map((s) => [...seg.segment(s)].map((x) => x.index))));
`

// TestThaiBreaksMatchNode checks thaiBreaks against Node 20's
// Intl.Segmenter (ICU 78.2's ThaiBreakEngine with thaidict) on a few
// hundred strings: inside every maximal run of Thai run characters, the
// boundaries must be Node's (with the marks that begin a run split off
// where UAX #29's rules do so, below).
func TestThaiBreaksMatchNode(t *testing.T) {
	node := requireNode(t, "audit Thai word breaks")
	corpus := thaiCorpus()
	cmd := exec.Command(node, "-e", thaiNode)
	cmd.Env = append(os.Environ(), "LANG=C", "LC_ALL=C")
	cmd.Stdin = strings.NewReader(string(mustJSON(corpus)))
	b, err := cmd.Output()
	require.NoError(t, err)
	var want [][]int
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want, len(corpus))

	runs, marked, bad := 0, 0, 0
	for i, s := range corpus {
		rs := []rune(s)
		// Node's boundaries are UTF-16 offsets; make them rune offsets.
		at := map[int]int{}
		u := 0
		for ri, r := range rs {
			at[u] = ri
			u += len(utf16.Encode([]rune{r}))
		}
		isBreak := map[int]bool{}
		for _, o := range want[i] {
			ri, ok := at[o]
			require.True(t, ok, "%q: Node's boundary %d is inside a code point", s, o)
			isBreak[ri] = true
		}
		for _, run := range thaiRuns(rs) {
			// Leading marks join the character before them (UAX #29's
			// WB4) before the dictionary sees the run. After a letter or
			// digit, which ICU's rules chain with Thai, the engine still
			// divides the whole run; at the start of the text or after
			// anything else, Node breaks after the marks and the engine
			// divides the rest. (segment.go must do the same.)
			lead := run[0]
			if run[0] == 0 || !unicode.IsLetter(rs[run[0]-1]) && !unicode.IsDigit(rs[run[0]-1]) {
				for lead < run[1] && isThaiMark(rs[lead]) {
					lead++
				}
			}
			runs++
			var nodeBreaks []int
			for k := run[0] + 1; k < run[1]; k++ {
				if isBreak[k] {
					nodeBreaks = append(nodeBreaks, k-run[0])
				}
			}
			var got []int
			if lead > run[0] && lead < run[1] {
				got = append(got, lead-run[0])
			}
			for _, b := range thaiBreaks(rs[lead:run[1]]) {
				got = append(got, lead-run[0]+b)
			}
			if lead > run[0] {
				marked++
			}
			if !slices.Equal(got, nodeBreaks) {
				bad++
				t.Errorf("%q: run %q: breaks %v, Node %v", s, string(rs[run[0]:run[1]]), got, nodeBreaks)
			}
		}
	}
	t.Logf("%d strings, %d Thai runs compared with Node (%d of them beginning with marks split off), %d differ", len(corpus), runs, marked, bad)
}

// TestThaiBreaksExamples pins a few segmentations (Node 20's) so that the
// engine is checked without node too.
func TestThaiBreaksExamples(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"ภาษาไทยเป็นภาษาที่สวยงาม", []string{"ภาษา", "ไทย", "เป็น", "ภาษา", "ที่", "สวยงาม"}},
		{"ไทย", []string{"ไทย"}},
		{"กรุงเทพฯเป็นเมืองหลวง", []string{"กรุงเทพฯ", "เป็น", "เมือง", "หลวง"}},
		{"เด็กๆวิ่งเล่น", []string{"เด็กๆ", "วิ่ง", "เล่น"}},
	} {
		t.Run(c.in, func(t *testing.T) {
			rs := []rune(c.in)
			var got []string
			last := 0
			for _, b := range append(thaiBreaks(rs), len(rs)) {
				got = append(got, string(rs[last:b]))
				last = b
			}
			require.Equal(t, c.want, got)
		})
	}
}

// TestIsThaiDict checks the run set against Go's Thai script table: the
// Thai script less U+0E3F..U+0E3F and U+0E4F..U+0E5B, which are not
// LineBreak=SA.
func TestIsThaiDict(t *testing.T) {
	for r := rune(0); r <= 0x2000; r++ {
		want := unicode.Is(unicode.Thai, r) && r != 0x0e3f && (r < 0x0e4f || r > 0x0e5b)
		require.Equal(t, want, isThaiDict(r), "U+%04X", r)
		if isThaiMark(r) {
			require.True(t, isThaiDict(r) && unicode.Is(unicode.M, r), "U+%04X", r)
		}
		if isThaiDict(r) && unicode.Is(unicode.M, r) {
			require.True(t, isThaiMark(r), "U+%04X", r)
		}
	}
}

// TestBytesTrieWalk walks thaidict's trie over a few words and non-words.
func TestBytesTrieWalk(t *testing.T) {
	d, err := thaiDictionary()
	require.NoError(t, err)
	walk := func(s string) []trieResult {
		tr := newBytesTrie(d.bytes)
		var out []trieResult
		for _, r := range s {
			out = append(out, tr.next(dictByte(r, d.offset)))
		}
		return append(out, tr.current())
	}
	const (
		no  = trieNoMatch
		pre = trieNoValue
		fin = trieFinalValue
		mid = trieIntermediateValue
	)
	for _, c := range []struct {
		word string
		want []trieResult
	}{
		// ไทย is a word and begins longer ones (ไทยรัฐ, ...).
		// The prefixes ไท, กร, กรุ, กรุง and กรุงเทพ are words of
		// thaidict too; คนไทย is not.
		{"ไทย", []trieResult{pre, mid, mid, mid}},
		{"คน", []trieResult{pre, mid, mid}},
		{"คนไทย", []trieResult{pre, mid, pre, no, no, no}},
		{"ฮฮฮ", []trieResult{pre, no, no, no}},
		{"กรุงเทพมหานคร", []trieResult{pre, mid, mid, mid, pre, pre, mid, pre, pre, pre, pre, pre, fin, fin}},
	} {
		t.Run(c.word, func(t *testing.T) {
			require.Equal(t, c.want, walk(c.word))
		})
	}
	// A code point outside the dictionary's range matches nothing.
	tr := newBytesTrie(d.bytes)
	require.Equal(t, trieNoMatch, tr.next(dictByte('a', d.offset)))

	lengths := make([]int, maxWordCandidates)
	for _, c := range []struct {
		text      string
		maxLength int
		limit     int
		want      []int
		prefix    int
	}{
		{"กรุงเทพมหานครฯ", 20, 20, []int{2, 3, 4, 7, 13}, 13}, // a final value ends the walk
		{"กรุงเทพมหานคร", 6, 20, []int{2, 3, 4}, 6},           // maxLength ends it
		{"กรุงเทพมหานคร", 20, 2, []int{2, 3}, 13},             // limit keeps the shortest
		{"คนไทยรัก", 20, 20, []int{2}, 4},                     // the code point that fails counts
		{"ฮฮ", 20, 20, []int{}, 2},
		{"abc", 20, 20, []int{}, 1},
	} {
		n, prefix := bytesTrieMatches(d.bytes, d.offset, []rune(c.text), c.maxLength, lengths[:c.limit])
		require.Equal(t, c.want, lengths[:n:n], c.text)
		require.Equal(t, c.prefix, prefix, c.text)
	}
}

// TestThaiBreaksBounded runs thaiBreaks on random runs of up to 10,000
// code points: each ends quickly with ascending offsets inside the run.
func TestThaiBreaksBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 40 {
		n := 1 + rng.IntN(10000)
		if i == 0 {
			n = 10000
		}
		run := make([]rune, n)
		for k := range run {
			if i%2 == 0 {
				run[k] = randomThaiRune(rng)
			} else {
				// Words glued together, a realistic run.
				w := []rune(thaiWords[rng.IntN(len(thaiWords))])
				run = append(run[:k], w...)
				if len(run) >= n {
					break
				}
			}
		}
		run = run[:min(len(run), n)]
		start := time.Now()
		got := thaiBreaks(run)
		took := time.Since(start)
		require.Less(t, took, 2*time.Second, "%d runes", len(run))
		last := 0
		for _, b := range got {
			require.Greater(t, b, last)
			require.Less(t, b, len(run))
			last = b
		}
		if i < 2 {
			t.Logf("%d runes, %d breaks, %v", len(run), len(got), took)
		}
	}
	for _, s := range []string{"", "ก", "ๆ", "ฯๆ", "ๆๆๆๆๆๆๆๆ", "ฯฯฯฯฯฯฯ", "ั่ั่ั่ั่"} {
		got := thaiBreaks([]rune(s))
		for _, b := range got {
			require.True(t, b > 0 && b < len([]rune(s)))
		}
	}
}

// TestBytesTrieDamaged walks and divides with truncated and bit-flipped
// copies of thaidict's trie: nothing panics and every answer stays in
// range.
func TestBytesTrieDamaged(t *testing.T) {
	d, err := thaiDictionary()
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	text := []rune(strings.Join(thaiWords[:60], ""))
	check := func(trie []byte) {
		lengths := make([]int, maxWordCandidates)
		for k := 0; k < len(text); k += 7 {
			n, prefix := bytesTrieMatches(trie, d.offset, text[k:], len(text)-k, lengths)
			require.LessOrEqual(t, n, len(lengths))
			require.LessOrEqual(t, prefix, len(text)-k)
		}
		last := 0
		for _, b := range thaiBreaksWith(trie, d.offset, text) {
			require.Greater(t, b, last)
			require.Less(t, b, len(text))
			last = b
		}
	}
	check(nil)
	for _, n := range []int{1, 2, 3, 7, 100, len(d.bytes) / 2, len(d.bytes) - 1} {
		check(d.bytes[:n])
	}
	for range 300 {
		b := slices.Clone(d.bytes)
		for range 1 + rng.IntN(20) {
			i := rng.IntN(len(b))
			if rng.IntN(4) == 0 {
				i = rng.IntN(min(len(b), 64)) // near the root, where walks begin
			}
			b[i] ^= 1 << rng.IntN(8)
		}
		check(b)
	}
	for range 50 {
		b := make([]byte, 1+rng.IntN(512))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		check(b)
	}
}

// FuzzThaiBreaks checks that thaiBreaks ends with ascending offsets inside
// any run.
func FuzzThaiBreaks(f *testing.F) {
	for _, s := range thaiPhrases[:20] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var run []rune
		for _, r := range s {
			if isThaiDict(r) {
				run = append(run, r)
			}
		}
		last := 0
		for _, b := range thaiBreaks(run) {
			if b <= last || b >= len(run) {
				t.Fatalf("%q: break %d after %d", string(run), b, last)
			}
			last = b
		}
	})
}

// BenchmarkThaiBreaks divides a 10,000-code-point run of dictionary words.
func BenchmarkThaiBreaks(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	var run []rune
	for len(run) < 10000 {
		run = append(run, []rune(thaiWords[rng.IntN(len(thaiWords))])...)
	}
	run = run[:10000]
	thaiBreaks(run) // load the dictionary
	for b.Loop() {
		thaiBreaks(run)
	}
}

// FuzzBytesTrieMatches walks arbitrary bytes as a trie: no panic, and
// answers in range.
func FuzzBytesTrieMatches(f *testing.F) {
	d, err := thaiDictionary()
	require.NoError(f, err)
	f.Add(d.bytes[:min(len(d.bytes), 256)], "กรุงเทพมหานคร")
	f.Add([]byte{0x00, 0x05}, "ก")
	f.Add([]byte{0x1f, 0x01, 0x21}, "ก")
	f.Fuzz(func(t *testing.T, trie []byte, s string) {
		text := []rune(s)
		lengths := make([]int, maxWordCandidates)
		n, prefix := bytesTrieMatches(trie, d.offset, text, len(text), lengths)
		if n > len(lengths) || prefix > len(text) {
			t.Fatalf("%d words, prefix %d of %d", n, prefix, len(text))
		}
		last := 0
		for _, b := range thaiBreaksWith(trie, d.offset, text) {
			if b <= last || b >= len(text) {
				t.Fatalf("break %d after %d", b, last)
			}
			last = b
		}
	})
}
