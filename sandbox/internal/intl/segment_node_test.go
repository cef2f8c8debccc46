package intl

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// segmentNode prints, for each [locale, text] pair, the word segments
// Node 20 finds as [start, end, isWordLike] in UTF-16 units.
const segmentNode = `
const cases = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = cases.map(([l, s]) => [...new Intl.Segmenter(l, { granularity: "word" }).segment(s)]
  .map((x) => [x.index, x.index + x.segment.length, x.isWordLike ? 1 : 0]));
process.stdout.write(JSON.stringify(out));
`

// nodeWordSegments runs segmentNode on cases.
func nodeWordSegments(t *testing.T, cases [][2]string) [][][]int {
	t.Helper()
	node := requireNode(t, "compare word segmentation")
	in, err := json.Marshal(cases)
	require.NoError(t, err)
	cmd := exec.Command(node, "-e", segmentNode)
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Env = nodeEnv()
	b, err := cmd.Output()
	require.NoError(t, err)
	var want [][][]int
	require.NoError(t, json.Unmarshal(b, &want))
	require.Len(t, want, len(cases))
	return want
}

// wordSegmentsOf asks the handler for s's word segments in locale l.
func wordSegmentsOf(t *testing.T, h *Handler, l, s string) [][]int {
	t.Helper()
	req, err := json.Marshal(map[string]any{"op": "seg", "l": []string{l}, "o": map[string]string{"granularity": "word"}, "v": s})
	require.NoError(t, err)
	v, err := h.handle(req)
	require.NoError(t, err)
	return v.(*segAnswer).B
}

// cjTexts are Chinese and Japanese texts written for this test: news,
// reports, chat, instructions, with Latin, digits and punctuation mixed in.
var cjTexts = []string{
	"今日はとても良い天気ですね。",
	"東京都の人口は約1400万人です。",
	"私は毎朝コーヒーを飲みながらニュースを読みます。",
	"このレポートでは売上の推移を分析しました。",
	"プログラミング言語のTypeScriptは人気があります。",
	"明日の会議は午後三時から始まります。",
	"株式会社サンプルは新しいサービスを発表した。",
	"ひらがなだけでかいたぶんしょうです",
	"カタカナノミデカイタブンショウデス",
	"ｶﾀｶﾅの半角もあります。",
	"日本語の文章を単語に分割するテストです。",
	"請問最近的地鐵站在哪裡？",
	"我们明天去北京参观故宫博物院。",
	"这个季度的销售额增长了百分之十五。",
	"人工智能正在改变我们的生活方式。",
	"他在图书馆里看了一整天的书。",
	"中华人民共和国成立于一九四九年。",
	"请把文件发送到我的电子邮箱。",
	"機械学習モデルの精度を評価する。",
	"電話番号は03-1234-5678です。",
	"価格：3,980円（税込）",
	"「こんにちは」と彼は言った。",
	"ユーザーインターフェースを改善しました",
	"東京タワーとスカイツリー",
	"顧客満足度調査の結果を報告します。",
	"上海的天气今天很热，最高气温三十五度。",
	"我喜欢吃苹果和香蕉。",
	"经济学家预测明年经济将会复苏。",
	"Go言語でウェブサーバーを書く",
	"データベースの接続に失敗しました。再試行してください。",
	"本日は晴天なり",
	"漢字とひらがなとカタカナが混ざった文",
	"新型コロナウイルス感染症対策本部",
	"北海道大学大学院情報科学研究科",
	"中国科学院计算技术研究所",
	"台灣的夜市非常有名。",
	"會議記錄已經上傳到共享資料夾。",
	"お問い合わせは下記までご連絡ください。",
	"ありがとうございました！またお越しください。",
	"ラーメン、寿司、天ぷらが好きです。",
	"𠮷野家で牛丼を食べた。",
	"第1四半期の営業利益は前年同期比12%増",
	"彼女はピアノを弾くのが上手だ。",
	"地球温暖化は深刻な問題である。",
	"这是一个测试句子，用来检查分词结果。",
	"美国总统选举将于十一月举行。",
	"在线购物越来越方便了。",
	"日本の首都は東京です",
	"ｺﾝﾋﾟｭｰﾀｰ",
	"たべものやさん",
}

// TestWordSegmentsCJMatchNode compares the word segments of Chinese and
// Japanese texts, in Chinese, Japanese and English locales, with Node's.
func TestWordSegmentsCJMatchNode(t *testing.T) {
	var cases [][2]string
	for _, s := range cjTexts {
		for _, l := range []string{"ja", "zh", "en"} {
			cases = append(cases, [2]string{l, s})
		}
	}
	compareSegments(t, cases)
}

// TestWordSegmentsCJRandomMatchNode compares generated texts with Node's
// segments: words and single characters of every kind the engine handles
// or borders (Han, Hiragana, Katakana full and half width, long Katakana
// runs, the prolonged sound mark, ideographs outside the BMP,
// compatibility ideographs, variation selectors, Hangul, Latin, digits,
// spaces, punctuation, emoji), in random order.
func TestWordSegmentsCJRandomMatchNode(t *testing.T) {
	pieces := []string{
		"東京", "大阪", "日本", "中国", "研究", "開発", "会社", "学校", "電車", "天気", "今日", "明日",
		"の", "は", "が", "を", "に", "で", "と", "も", "から", "まで", "です", "ます", "した",
		"コンピュータ", "ソフトウェア", "インターネット", "テスト", "デ", "ー", "ヴ", "ヶ", "・",
		"ｶﾀｶﾅ", "ﾃﾞｰﾀ", "ｰ", "ﾞ", "ﾟ", "我们", "你好", "谢谢", "经济", "发展", "的", "了", "是",
		"𠮷", "𩸽", "\uf900", "\u2f00", "葛\U000E0100", "辻\U000E0101", "\ufe0f", "\u3005", "〆",
		"한국어", "서울", "abc", "API", "42", "３", "２０２４", " ", "　", "、", "。", "「", "」", "（", "）",
		"!", "?", "😀", "👍🏽", "\u0301", "\u200d", "アイウエオカキクケコサシスセソタチツテトナニヌネノハ",
	}
	compareRandomSegments(t, 12345, pieces, []string{"ja", "zh", "en", "th"}, 400)
}

// TestWordSegmentsThaiMatchNode compares generated Thai texts, with Latin,
// digits, Thai digits, marks at the start of runs, spaces, punctuation and
// CJK around them, with Node's segments.
func TestWordSegmentsThaiMatchNode(t *testing.T) {
	pieces := []string{
		"ภาษาไทย", "สวัสดี", "ครับ", "ค่ะ", "ประเทศ", "กรุงเทพมหานคร", "รัฐบาล", "ประกาศ", "นโยบาย", "เศรษฐกิจ",
		"การศึกษา", "มหาวิทยาลัย", "คอมพิวเตอร์", "โปรแกรม", "ข้อมูล", "ที่", "และ", "ของ", "ใน", "เป็น", "ได้",
		"ไป", "มา", "ๆ", "ฯ", "ฯลฯ", "\u0e31", "\u0e48", "\u0e34\u0e48", "ก", "ข", "กขฃ", "ไ", "เ", "ะ",
		"abc", "API", "v2", "42", "๒๕๖๗", "฿", " ", "  ", ",", ".", "!", "?", "(", ")", "\"", "'", "_", "-",
		"日本", "한국", "😀", "\u200b", "\u200d", "\n",
	}
	compareRandomSegments(t, 987654, pieces, []string{"th", "en", "ja"}, 500)
}

// TestWordSegmentsOtherMatchNode checks that the re-cut leaves the words
// of other scripts as Node has them: Latin with apostrophes, decimals,
// connectors and marks, Hebrew, Arabic, Cyrillic, Devanagari, emoji
// sequences, flags and Korean.
func TestWordSegmentsOtherMatchNode(t *testing.T) {
	pieces := []string{
		"hello", "world", "can't", "O'Neil", "3.14", "1,000", "e.g.", "foo_bar", "_", "-", "—", "x\u0301",
		"\u0301", "\u200d", "\u200b", "\u00ad", "שלום", "עולם", "\"", "'", "مرحبا", "سلام", "привет", "мир",
		"नमस्ते", "दुनिया", "😀", "👍🏽", "👨\u200d👩\u200d👧", "🇯🇵", "🇺🇸🇫🇷", "한국어", "서울", "가",
		"\u3000", " ", "\t", "\r\n", ".", ",", "!", "?", ":", ";", "(", ")", "#", "@", "$", "%", "42", "٣",
		"Ａ", "ｂ", "１２", "ℕ", "①", "½", "x²", "naïve", "İstanbul", "ß",
	}
	compareRandomSegments(t, 4242, pieces, []string{"en", "he", "ar", "ko"}, 500)
}

// TestWordSegmentsKanaWithMarksMatchNode compares texts where kana and
// ideographs have combining marks after them with Node's segments: ICU's
// $KatakanaEx, $HiraganaEx and $IdeographicEx take the marks, so such a
// segment is word-like (゜ﾟ, ㋐ﾟ, 〇゚, 🈀́), while 々 or a radical with a
// mark after it is not.
func TestWordSegmentsKanaWithMarksMatchNode(t *testing.T) {
	requireWordSegmentsMatchNode(t, []string{
		"゜ﾟは。", "゜́", "Ａ゜〇〇゚", "ｶﾀｶﾅ㋐ﾟ⼀々です", "🈀́", "㋐゙", "〇゙", "ア゙", "ゟ゙", "㌀゙",
		"⺀です㍿ㇰですｰｰｰ㋐่", "ヵa゜゙ﬁ〆研究゙한", "ｈ㌀ﾞ㍿〇々テスト〇ヿ", "゜" + strings.Repeat("\u3099", 32) + "⼀が",
		"々゙", "⺀゙", "々", "東々゙", "東ﾞ", "か\u0301",
	})
}

// TestWordSegmentsUnhandledScriptMatchNode compares texts with the kana
// marks of the Common script (〱〵゛゜゠), which no dictionary engine
// handles, with Node's segments: ICU's UnhandledEngine then takes the
// whole run of the character's script (Common: ｰ and ー too), so 〵ｰ〇
// is one word, not 〵ｰ|〇. ICU keeps the engines it made for the life of
// the process, so Node cuts such text by what it segmented before ("ー⺀"
// after "゜a" is one word in a fresh process, two after any Chinese or
// Japanese text): each text is compared with a fresh Node, as airlock
// starts afresh for each text.
func TestWordSegmentsUnhandledScriptMatchNode(t *testing.T) {
	texts := []string{
		"〵ｰ〇", "ーa日本ヵ〵ー研究㍿ヵｈ", "〱東京", "東京〱ｰ研究", "゛ーー日本", "゠ーテスト", "日本〵〵〵のー研究",
		"한국어〱ー日本", "〵ー・ー東京", "゜aー⺀", "ไทย゜ー⺀東京",
	}
	h := New()
	for _, s := range texts {
		c := [2]string{"ja", s}
		want := nodeWordSegments(t, [][2]string{c}) // a process of its own
		got := wordSegmentsOf(t, h, c[0], c[1])
		require.Equal(t, fmt.Sprint(want[0]), fmt.Sprint(got), "%q %+q", s, s)
	}
}

// requireWordSegmentsMatchNode requires the word segments of each text,
// in Japanese and Chinese, to be Node's.
func requireWordSegmentsMatchNode(t *testing.T, texts []string) {
	t.Helper()
	var cases [][2]string
	for _, s := range texts {
		for _, l := range []string{"ja", "zh"} {
			cases = append(cases, [2]string{l, s})
		}
	}
	want := nodeWordSegments(t, cases)
	h := New()
	for i, c := range cases {
		got := wordSegmentsOf(t, h, c[0], c[1])
		require.Equal(t, fmt.Sprint(want[i]), fmt.Sprint(got), "%s %q %+q", c[0], c[1], c[1])
	}
}

// compareRandomSegments compares with Node the word segments of n texts,
// each up to a dozen pieces in an order drawn from seed, in locales drawn
// from locales.
func compareRandomSegments(t *testing.T, seed uint32, pieces, locales []string, n int) {
	t.Helper()
	rnd := func(n int) int {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int(seed % uint32(n))
	}
	var cases [][2]string
	for range n {
		var b strings.Builder
		for k := 1 + rnd(12); k > 0; k-- {
			b.WriteString(pieces[rnd(len(pieces))])
		}
		cases = append(cases, [2]string{locales[rnd(len(locales))], b.String()})
	}
	compareSegments(t, cases)
}

// compareSegments requires Node's word segments for each case.
func compareSegments(t *testing.T, cases [][2]string) {
	t.Helper()
	want := nodeWordSegments(t, cases)
	h := New()
	bad := 0
	for i, c := range cases {
		got := wordSegmentsOf(t, h, c[0], c[1])
		if fmt.Sprint(got) != fmt.Sprint(want[i]) {
			bad++
			t.Errorf("%s %q:\n got %v\nwant %v", c[0], c[1], got, want[i])
		}
	}
	t.Logf("%d of %d texts segmented as Node does", len(cases)-bad, len(cases))
}

// TestWordSegmentsConnectorsMatchNode compares generated texts of
// connectors (_, ‿, ＿, the narrow no-break space) with marks, letters,
// digits, kana, spaces and punctuation with Node's segments: ICU's rules
// make a run of two or more connectors word-like, unless marks end it.
func TestWordSegmentsConnectorsMatchNode(t *testing.T) {
	pieces := []string{"_", "_", "‿", "＿", "\u202f", "\u0301", "a", "1", "ｶ", "日本", " ", "(", ")", ".", "ไทย", "ພາສາ"}
	compareRandomSegments(t, 2024, pieces, []string{"en", "ja"}, 500)
}
