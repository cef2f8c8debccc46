package intl

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/require"
)

// seaVocab are vocabularies of common words (news, daily life, function
// words) of Lao, Khmer and Burmese, from which the Node comparison
// composes sentences.
var seaVocab = map[string][]string{
	"lo": strings.Fields(`
ພາສາ ລາວ ເປັນ ທີ່ ສວຍງາມ ປະເທດ ປະຊາຊົນ ລັດຖະບານ ນະຄອນຫຼວງ ວຽງຈັນ ຂ້ອຍ ເຈົ້າ ພວກເຮົາ ໄປ ມາ ກິນ
ເຂົ້າ ນ້ຳ ເຮືອນ ໂຮງຮຽນ ນັກຮຽນ ຄູ ເສດຖະກິດ ການ ເຮັດວຽກ ມື້ນີ້ ມື້ອື່ນ ມື້ວານ ຕະຫຼາດ ຊື້ ຂາຍ ລາຄາ ສູງ
ຕ່ຳ ດີ ຫຼາຍ ໜ້ອຍ ແລະ ຫຼື ແຕ່ ຂອງ ໃນ ກັບ ຈະ ໄດ້ ບໍ່ ມີ ຢູ່ ວ່າ ໃຫ້ ແລ້ວ ຄວາມ ສຸກ ຮັກ ໝູ່ ຄອບຄົວ
ເດັກນ້ອຍ ລົດ ຖະໜົນ ຝົນ ຕົກ ອາກາດ ຮ້ອນ ເຢັນ ຂ່າວ ລາຍງານ ໂຮງໝໍ ທ່ານໝໍ ມະຫາວິທະຍາໄລ ຄອມພິວເຕີ
ໂທລະສັບ ອິນເຕີເນັດ ບໍລິສັດ ທະນາຄານ ເງິນ ກີບ ການທ່ອງທ່ຽວ ແມ່ນ້ຳຂອງ ຫຼວງພະບາງ ສະບາຍດີ ຂອບໃຈ
ຂໍໂທດ ແມ່ນ ຫຍັງ ໃສ ເມື່ອໃດ ເປັນຫຍັງ ແນວໃດ ໃຜ ເທົ່າໃດ ກອງປະຊຸມ ນະໂຍບາຍ ພັດທະນາ ກະຊວງ ສາທາລະນະສຸກ
ການສຶກສາ ກະສິກອນ ເຂົ້າໜຽວ ອາຫານ ແຊບ ງາມ ໃຫຍ່ ນ້ອຍ ໄວ ຊ້າ ວັດ ພະ ເດີນທາງ ສະໜາມບິນ ຍົນ ລົດໄຟ
ປີ ເດືອນ ອາທິດ ຊົ່ວໂມງ ນາທີ ສຳລັບ ໂດຍ ຈາກ ເຖິງ ເພື່ອ ຕ້ອງ ຄວນ ອາດ ກຳລັງ ເຄີຍ ຍັງ ທຸກ ບາງ ຄົນ ສິ່ງ
ເລື່ອງ ບັນຫາ ແກ້ໄຂ ສະໜັບສະໜູນ ໂຄງການ ແຂວງ ເມືອງ ບ້ານ ນ້ຳຖ້ວມ ສົ່ງອອກ ນຳເຂົ້າ ຜະລິດ ສິນຄ້າ ບໍລິການ
ລູກຄ້າ ພະນັກງານ ບານເຕະ ແຂ່ງຂັນ ຊະນະ ປຶ້ມ ອ່ານ ຂຽນ ຟັງ ເວົ້າ ເຫັນ ຮູ້ ເຂົ້າໃຈ ຄິດ ມັກ ຢາກ
`),
	"km": strings.Fields(`
ភាសា ខ្មែរ គឺជា ផ្លូវការ ប្រទេស កម្ពុជា រាជធានី ភ្នំពេញ ខ្ញុំ អ្នក គាត់ យើង ទៅ មក ញ៉ាំ បាយ ទឹក ផ្ទះ
សាលារៀន សិស្ស គ្រូ សេដ្ឋកិច្ច ការងារ ថ្ងៃនេះ ថ្ងៃស្អែក ម្សិលមិញ ផ្សារ ទិញ លក់ តម្លៃ ខ្ពស់ ទាប ល្អ
ច្រើន តិច និង ឬ ប៉ុន្តែ របស់ នៅ ជាមួយ នឹង បាន មិន មាន ជា ថា ឲ្យ ហើយ សេចក្តី សុខ ស្រឡាញ់ មិត្ត
គ្រួសារ កូនក្មេង ឡាន ផ្លូវ ភ្លៀង ធ្លាក់ អាកាសធាតុ ក្តៅ ត្រជាក់ ព័ត៌មាន របាយការណ៍ មន្ទីរពេទ្យ
វេជ្ជបណ្ឌិត សាកលវិទ្យាល័យ កុំព្យូទ័រ ទូរស័ព្ទ អ៊ីនធឺណិត ក្រុមហ៊ុន ធនាគារ លុយ រៀល ទេសចរណ៍
ទន្លេមេគង្គ អង្គរវត្ត សៀមរាប សួស្តី អរគុណ សុំទោស អ្វី ណា ពេលណា ហេតុអ្វី យ៉ាងម៉េច នរណា ប៉ុន្មាន
កិច្ចប្រជុំ គោលនយោបាយ អភិវឌ្ឍ ក្រសួង សុខាភិបាល ការអប់រំ កសិករ អង្ករ ម្ហូប ឆ្ងាញ់ ស្អាត ធំ តូច
លឿន យឺត វត្ត ព្រះ ធ្វើដំណើរ អាកាសយានដ្ឋាន យន្តហោះ រថភ្លើង រដ្ឋាភិបាល ប្រជាជន ឆ្នាំ ខែ សប្តាហ៍
ម៉ោង នាទី សម្រាប់ ដោយ ពី ដល់ ដើម្បី ត្រូវ គួរ ប្រហែល កំពុង ធ្លាប់ នៅតែ គ្រប់ ខ្លះ មនុស្ស រឿង
បញ្ហា ដោះស្រាយ គាំទ្រ គម្រោង ខេត្ត ស្រុក ភូមិ ទឹកជំនន់ នាំចេញ នាំចូល ផលិត ទំនិញ សេវាកម្ម
អតិថិជន បុគ្គលិក បាល់ទាត់ ប្រកួត ឈ្នះ សៀវភៅ អាន សរសេរ ស្តាប់ និយាយ ឃើញ ដឹង យល់ គិត ចូលចិត្ត ចង់
`),
	"my": strings.Fields(`
မြန်မာ ဘာသာ စကား သည် နိုင်ငံ ပြည်သူ အစိုးရ မြို့တော် ရန်ကုန် နေပြည်တော် ကျွန်တော် ကျွန်မ သင် သူ
ကျွန်ုပ်တို့ သွား လာ စား ထမင်း ရေ အိမ် ကျောင်း ကျောင်းသား ဆရာ စီးပွားရေး အလုပ် ယနေ့ မနက်ဖြန်
မနေ့က ဈေး ဝယ် ရောင်း ဈေးနှုန်း မြင့် နိမ့် ကောင်း များ နည်း နှင့် သို့မဟုတ် သို့သော် ၏ တွင် နဲ့ မည်
ရ မ ရှိ ဖြစ် ဟု ပေး ပြီ အချစ် ချစ် သူငယ်ချင်း မိသားစု ကလေး ကား လမ်း မိုး ရွာ ရာသီဥတု ပူ အေး
သတင်း အစီရင်ခံစာ ဆေးရုံ ဆရာဝန် တက္ကသိုလ် ကွန်ပျူတာ ဖုန်း အင်တာနက် ကုမ္ပဏီ ဘဏ် ငွေ ကျပ်
ခရီးသွား ဧရာဝတီ ပုဂံ မင်္ဂလာပါ ကျေးဇူးတင်ပါတယ် တောင်းပန်ပါတယ် ဘာ ဘယ်မှာ ဘယ်တော့ ဘာကြောင့်
ဘယ်လို ဘယ်သူ ဘယ်လောက် အစည်းအဝေး မူဝါဒ ဖွံ့ဖြိုး ဝန်ကြီးဌာန ကျန်းမာရေး ပညာရေး လယ်သမား ဆန်
အစားအစာ စားကောင်း လှ ကြီး သေး မြန် နှေး ဘုရား ခရီး လေဆိပ် လေယာဉ် ရထား ပါ တယ် ခဲ့ သော နှစ်
လ ပတ် နာရီ မိနစ် အတွက် ဖြင့် မှ အထိ ရန် ရမည် သင့် နိုင် နေ ဖူး သေး တိုင်း အချို့ လူ အရာ ကိစ္စ
ပြဿနာ ဖြေရှင်း ထောက်ခံ စီမံကိန်း ပြည်နယ် တိုင်းဒေသကြီး ကျေးရွာ ရေကြီး တင်ပို့ တင်သွင်း ထုတ်လုပ်
ကုန်ပစ္စည်း ဝန်ဆောင်မှု ဖောက်သည် ဝန်ထမ်း ဘောလုံး ပြိုင်ပွဲ နိုင် စာအုပ် ဖတ် ရေး နားထောင် ပြော မြင် သိ နားလည် တွေး ကြိုက် ချင်
`),
}

// seaSentences are written sentences: news, reports, chat, with digits,
// Latin, punctuation and spaces as such texts have them.
var seaSentences = map[string][]string{
	"lo": {
		"ພາສາລາວເປັນພາສາທີ່ສວຍງາມ",
		"ລັດຖະບານລາວປະກາດນະໂຍບາຍໃໝ່ເພື່ອພັດທະນາເສດຖະກິດ",
		"ມື້ນີ້ອາກາດຮ້ອນຫຼາຍຢູ່ນະຄອນຫຼວງວຽງຈັນ",
		"ນັກທ່ອງທ່ຽວຕ່າງປະເທດມາທ່ຽວຫຼວງພະບາງເພີ່ມຂຶ້ນ",
		"ຂ້ອຍມັກກິນເຂົ້າໜຽວກັບປີ້ງໄກ່",
		"ສະບາຍດີ ເຈົ້າສະບາຍດີບໍ່?",
		"ຂອບໃຈຫຼາຍໆ",
		"ລາຄາ 25,000 ກີບ ຕໍ່ຄົນ",
		"ກອງປະຊຸມຈະເລີ່ມເວລາ 9:00 ໂມງເຊົ້າ",
		"ໂຄງການພັດທະນາເຕັກໂນໂລຊີຂໍ້ມູນຂ່າວສານ",
		"ກະຊວງສາທາລະນະສຸກລາຍງານວ່າມີຜູ້ປ່ວຍເພີ່ມຂຶ້ນ",
		"ແມ່ນ້ຳຂອງໄຫຼຜ່ານຫຼາຍປະເທດ",
		"ໃຊ້ iPhone 15 ຖ່າຍຮູບສວຍຫຼາຍ",
		"ວັນທີ ໑໒ ເດືອນ ມັງກອນ ໒໐໒໔",
		"\"ສະບາຍດີປີໃໝ່\" ລາວເວົ້າ",
		"ເດັກນ້ອຍໆຫຼິ້ນຢູ່ໃນສະໜາມ",
		"ທະນາຄານແຫ່ງ ສປປ ລາວ ປະກາດອັດຕາແລກປ່ຽນ",
		"ຕິດຕໍ່: info@example.la ຫຼື ໂທ 021-123456",
		"ການສຶກສາແມ່ນພື້ນຖານຂອງການພັດທະນາ",
		"ລົດໄຟລາວ-ຈີນແລ່ນຈາກວຽງຈັນໄປບໍ່ເຕັນ",
	},
	"km": {
		"ភាសាខ្មែរគឺជាភាសាផ្លូវការរបស់ប្រទេសកម្ពុជា",
		"រាជរដ្ឋាភិបាលបានប្រកាសគោលនយោបាយថ្មីដើម្បីអភិវឌ្ឍសេដ្ឋកិច្ច",
		"ថ្ងៃនេះអាកាសធាតុក្តៅខ្លាំងនៅរាជធានីភ្នំពេញ",
		"ភ្ញៀវទេសចរបរទេសមកទស្សនាអង្គរវត្តកាន់តែច្រើន។",
		"ខ្ញុំចូលចិត្តញ៉ាំបាយជាមួយត្រីអាំង",
		"សួស្តី! តើអ្នកសុខសប្បាយជាទេ?",
		"អរគុណច្រើន។",
		"តម្លៃ ២៥,០០០ រៀល ក្នុងមួយនាក់",
		"កិច្ចប្រជុំនឹងចាប់ផ្តើមនៅម៉ោង 9:00 ព្រឹក",
		"ក្រសួងសុខាភិបាលបានរាយការណ៍ថាមានអ្នកជំងឺកើនឡើង",
		"ទន្លេមេគង្គហូរកាត់ប្រទេសជាច្រើន៕",
		"ប្រើ iPhone 15 ថតរូបស្អាតណាស់",
		"ថ្ងៃទី១២ ខែមករា ឆ្នាំ២០២៤",
		"«សួស្តីឆ្នាំថ្មី» គាត់និយាយ",
		"ក្មេងៗលេងនៅក្នុងសួន",
		"ធនាគារជាតិនៃកម្ពុជាប្រកាសអត្រាប្តូរប្រាក់",
		"ទំនាក់ទំនង: info@example.kh ឬ ទូរស័ព្ទ 023-123456",
		"ការអប់រំគឺជាមូលដ្ឋាននៃការអភិវឌ្ឍ",
		"សាកលវិទ្យាល័យភូមិន្ទភ្នំពេញបើកទទួលនិស្សិតថ្មី",
		"កសិករដាំស្រូវនៅខេត្តបាត់ដំបង",
	},
	"my": {
		"မြန်မာဘာသာစကားသည်မြန်မာနိုင်ငံ၏ရုံးသုံးဘာသာစကားဖြစ်သည်။",
		"အစိုးရသည်စီးပွားရေးဖွံ့ဖြိုးရန်မူဝါဒအသစ်ကိုကြေညာခဲ့သည်။",
		"ယနေ့ရန်ကုန်မြို့တွင်ရာသီဥတုအလွန်ပူသည်။",
		"နိုင်ငံခြားခရီးသွားများပုဂံသို့လာရောက်လည်ပတ်မှုများပြားလာသည်",
		"ကျွန်တော်ထမင်းနဲ့ငါးဟင်းစားရတာကြိုက်တယ်",
		"မင်္ဂလာပါ၊ နေကောင်းလား?",
		"ကျေးဇူးတင်ပါတယ်။",
		"ဈေးနှုန်း ၂၅,၀၀၀ ကျပ် တစ်ယောက်လျှင်",
		"အစည်းအဝေးကို နံနက် 9:00 နာရီတွင် စတင်မည်။",
		"ကျန်းမာရေးဝန်ကြီးဌာနကလူနာများတိုးလာကြောင်းအစီရင်ခံသည်",
		"ဧရာဝတီမြစ်သည်မြန်မာနိုင်ငံ၏အရှည်ဆုံးမြစ်ဖြစ်သည်။",
		"iPhone 15 နဲ့ဓာတ်ပုံရိုက်တာလှတယ်",
		"၂၀၂၄ ခုနှစ် ဇန်နဝါရီလ ၁၂ ရက်",
		"\"နှစ်သစ်ကူးမင်္ဂလာပါ\" ဟုသူကပြောသည်",
		"ကလေးများကွင်းထဲမှာကစားနေကြတယ်",
		"ဗဟိုဘဏ်ကငွေလဲနှုန်းကိုကြေညာခဲ့သည်",
		"ဆက်သွယ်ရန်: info@example.mm သို့မဟုတ် ဖုန်း 01-123456",
		"ပညာရေးသည်ဖွံ့ဖြိုးတိုးတက်မှု၏အခြေခံဖြစ်သည်",
		"ရန်ကုန်\u200bတက္ကသိုလ်\u200bသည်\u200bကျောင်းသား\u200bအသစ်\u200bများ\u200bကို\u200bလက်ခံ\u200bသည်",
		"လယ်သမားများသည်ဆန်စပါးစိုက်ပျိုးကြသည်",
	},
}

// seaRuns lists the run characters of each language.
var seaRuns = map[string][]rune{}

func init() {
	for lang, in := range map[string]func(rune) bool{"lo": isLaoDict, "km": isKhmerDict, "my": isBurmeseDict} {
		for r := rune(0); r < 0x20000; r++ {
			if in(r) {
				seaRuns[lang] = append(seaRuns[lang], r)
			}
		}
	}
}

// seaCorpus returns lang's inputs for the Node comparison: the written
// sentences, sentences composed from its vocabulary (some with spaces,
// digits, Latin or punctuation between words, some with a word
// misspelt), and strings of random run characters, some after a letter,
// digit, space or punctuation.
func seaCorpus(lang string, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 0x5ea))
	words := seaVocab[lang]
	out := slices.Clone(seaSentences[lang])
	extras := []string{" ", " ", ", ", ". ", "!", "?", "(", ")", "\"", "-", "ABC", "v2", " 2024 ", "\n", "\u200b", "😀", "日本", "ไทย"}
	for i := range 300 {
		var b strings.Builder
		n := 2 + rng.IntN(12)
		if i%4 == 0 {
			n = 25 + rng.IntN(30) // a paragraph
		}
		for range n {
			w := words[rng.IntN(len(words))]
			if rng.IntN(10) == 0 {
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
	runs := seaRuns[lang]
	prefixes := []string{"a", "1", " ", "(", "-", "\"", "x "}
	for i := range 150 {
		r := make([]rune, 1+rng.IntN(30))
		for k := range r {
			r[k] = runs[rng.IntN(len(runs))]
		}
		if i%3 == 0 {
			out = append(out, prefixes[rng.IntN(len(prefixes))]+string(r))
			continue
		}
		out = append(out, string(r))
	}
	return out
}

// TestWordSegmentsSEAsiaMatchNode compares the word segments of Lao,
// Khmer and Burmese texts (written, composed and random) with Node's, in
// the text's language and in English.
func TestWordSegmentsSEAsiaMatchNode(t *testing.T) {
	for k, lang := range []string{"lo", "km", "my"} {
		t.Run(lang, func(t *testing.T) {
			var cases [][2]string
			for i, s := range seaCorpus(lang, uint64(k+1)) {
				l := lang
				if i%3 == 2 {
					l = "en"
				}
				cases = append(cases, [2]string{l, s})
			}
			compareSegments(t, cases)
		})
	}
}

// TestWordSegmentsSEAsiaMixedMatchNode compares generated texts mixing
// Lao, Khmer and Burmese words and single characters (letters, marks,
// their digits and punctuation, Khmer lek too and Lao ko la, Myanmar's
// Shan and Khamti letters and symbols) with Latin, digits, spaces,
// punctuation, Thai, kana and emoji, with Node's segments.
func TestWordSegmentsSEAsiaMixedMatchNode(t *testing.T) {
	pieces := []string{
		"ພາສາລາວ", "ສະບາຍດີ", "ເປັນ", "ທີ່", "ໆ", "ໜ", "ເ", "\u0eb4", "\u0ec8", "໑໒", "ຯ", "ກ",
		"ភាសាខ្មែរ", "សួស្តី", "គឺជា", "ៗ", "។", "៕", "\u17d2", "\u17b6", "១២", "៛", "ក", "\u17dd", "ៜ",
		"မြန်မာ", "မင်္ဂလာပါ", "သည်", "၊", "။", "\u103a", "\u1039", "၁၂", "ꩠꩡ", "ၵ", "႞", "꩷", "ꧠ", "ꧦ", "က",
		"abc", "API", "v2", "42", " ", "  ", ",", ".", "!", "?", "(", ")", "\"", "'", "_", "-",
		"ไทย", "日本", "カタカナ", "😀", "\u200b", "\u200c", "\u200d", "\n", "\u0301",
	}
	compareRandomSegments(t, 31337, pieces, []string{"lo", "km", "my", "en"}, 600)
}

// TestSEAsiaSets checks the run sets against Go's script tables (Unicode
// 15; Unicode 17 adds to these scripts only Myanmar digits, which are not
// run characters): each is its script less the characters whose
// Line_Break is not Complex_Context.
func TestSEAsiaSets(t *testing.T) {
	notSA := func(r rune) bool {
		return r >= 0x0ed0 && r <= 0x0ed9 || // Lao digits
			r >= 0x1040 && r <= 0x104f || r >= 0x1090 && r <= 0x1099 || r >= 0xa9f0 && r <= 0xa9f9 || // Myanmar digits, punctuation
			r >= 0x17d4 && r <= 0x17d6 || r >= 0x17d8 && r <= 0x17db || r >= 0x17e0 && r <= 0x17f9 || r >= 0x19e0 && r <= 0x19ff // Khmer
	}
	for _, c := range []struct {
		name   string
		script *unicode.RangeTable
		in     func(rune) bool
		l      *lookaheadLang
	}{
		{"Lao", unicode.Lao, isLaoDict, laoLang},
		{"Myanmar", unicode.Myanmar, isBurmeseDict, burmeseLang},
		{"Khmer", unicode.Khmer, isKhmerDict, khmerLang},
	} {
		for r := rune(0); r <= 0x20000; r++ {
			want := unicode.Is(c.script, r) && !notSA(r)
			if c.in(r) != want || c.l.isMark(r) != (want && unicode.Is(unicode.M, r)) {
				t.Fatalf("%s U+%04X: in the set %v (want %v), a mark %v", c.name, r, c.in(r), want, c.l.isMark(r))
			}
			if (c.l.endWord(r) || c.l.beginWord(r) && unicode.Is(c.script, r)) && !c.in(r) {
				t.Fatalf("%s U+%04X: begins or ends a word, not in the set", c.name, r)
			}
		}
	}
}

// TestSEAsiaBreaksBounded runs the three engines on runs as long as a
// request can hold: random run characters, one character repeated, marks
// alone, words glued together. Each ends quickly, with ascending offsets
// strictly inside the run.
func TestSEAsiaBreaksBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for lang, l := range map[string]*lookaheadLang{"lo": laoLang, "km": khmerLang, "my": burmeseLang} {
		n := MaxRequestBytes / 3 // three UTF-8 bytes each
		random := make([]rune, n)
		for k := range random {
			random[k] = seaRuns[lang][rng.IntN(len(seaRuns[lang]))]
		}
		var words, marks []rune
		for len(words) < n {
			words = append(words, []rune(seaVocab[lang][rng.IntN(len(seaVocab[lang]))])...)
		}
		for _, r := range seaRuns[lang] {
			if l.isMark(r) {
				marks = append(marks, r)
			}
		}
		for len(marks) < n {
			marks = append(marks, marks...)
		}
		runs := [][]rune{random, words[:n], marks[:n], []rune(strings.Repeat(string(seaRuns[lang][0]), n))}
		for k := 0; k < 5; k++ {
			runs = append(runs, random[:k])
		}
		for _, run := range runs {
			start := time.Now()
			got := l.breaks(run)
			require.Less(t, time.Since(start), 2*time.Second, "%s: %d runes", lang, len(run))
			last := 0
			for _, b := range got {
				require.Greater(t, b, last, lang)
				require.Less(t, b, len(run), lang)
				last = b
			}
		}
	}
}

// TestSEAsiaBreaksDamaged divides text with truncated and bit-flipped
// copies of each dictionary's trie: nothing panics, and the offsets stay
// ascending inside the run.
func TestSEAsiaBreaksDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for lang, l := range map[string]*lookaheadLang{"lo": laoLang, "km": khmerLang, "my": burmeseLang} {
		d, err := l.dict()
		require.NoError(t, err)
		text := []rune(strings.Join(seaVocab[lang][:60], ""))
		check := func(trie []byte) {
			last := 0
			for _, b := range l.breaksWith(trie, d.offset, text) {
				require.Greater(t, b, last)
				require.Less(t, b, len(text))
				last = b
			}
		}
		check(nil)
		for _, n := range []int{1, 2, 3, 7, 100, len(d.bytes) / 2, len(d.bytes) - 1} {
			check(d.bytes[:n])
		}
		for range 200 {
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
	}
}

// TestSEAsiaBreaksExamples pins a few segmentations (Node 20's) so that
// the engines are checked without node too.
func TestSEAsiaBreaksExamples(t *testing.T) {
	for _, c := range []struct {
		l    *lookaheadLang
		want []string
	}{
		{laoLang, []string{"ພາສາ", "ລາວ", "ເປັນ", "ພາສາ", "ທີ່", "ສວຍງາມ"}},
		{khmerLang, []string{"ភាសាខ្មែរ", "គឺជា", "ភាសាផ្លូវការ"}},
		{burmeseLang, []string{"မြန်မာဘာသာ", "စကား", "သည်"}},
	} {
		rs := []rune(strings.Join(c.want, ""))
		var got []string
		last := 0
		for _, b := range append(c.l.breaks(rs), len(rs)) {
			got = append(got, string(rs[last:b]))
			last = b
		}
		require.Equal(t, c.want, got)
	}
}

// TestWordSegmentsUnhandledComplexMatchNode compares generated texts of
// the Complex_Context scripts ICU has no dictionary for (Tai Le, New Tai
// Lue, Tai Tham, Tai Viet, Ahom: letters, marks, signs, digits), mixed
// with Thai, Lao, Khmer, Burmese, Latin, digits, punctuation, kana and
// Hangul, with Node's segments: ICU's rules take them as letters and its
// UnhandledEngine keeps a run of one script whole.
func TestWordSegmentsUnhandledComplexMatchNode(t *testing.T) {
	pieces := []string{
		"ᥐᥣᥰᥓᥤᥰ", "ᥐ", "ᥰ", "ᦃᦸᧈ", "ᦺ", "᧑᧒", "᧚", "᧚.1", "᧚.a", "᧞", "ᨠᩮᩬᩥᨾ᩠ᨾᨶ", "ᨠ", "\u1a60", "\u1a75", "᪠", "ᪧ", "᪀᪁", "᪐",
		"ꪀꪱꪙ", "ꪀ", "\uaab0", "ꫛ", "꫞", "𑜀𑜁𑜂", "𑜀", "\U0001171d", "𑜰𑜱", "𑜺", "𑜿",
		"ภาษาไทย", "ພາສາລາວ", "ភាសាខ្មែរ", "မြန်မာ", "ꩠꩡ", "abc", "42", " ", ",", ".", "(", "\"", "_", "-",
		"日本", "カタカナ", "한국", "😀", "\u200b", "\u200d", "\u0301", "\n",
	}
	compareRandomSegments(t, 2718, pieces, []string{"th", "en", "my"}, 600)
}
