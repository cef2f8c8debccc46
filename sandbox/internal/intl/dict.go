package intl

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"sync"
)

// dictionary is one of ICU's word-break dictionaries (dict_gen.go): a
// string trie mapping words to costs (cjdict) or to nothing (thaidict,
// laodict, burmesedict, khmerdict).
// Exactly one of units and bytes is set.
type dictionary struct {
	units     []uint16 // a UCharsTrie (cjdict)
	bytes     []byte   // a BytesTrie (the others)
	hasValues bool
	// offset is what a code point less it is, as a byte of a BytesTrie
	// (ICU's TRANSFORM_TYPE_OFFSET): code points outside offset to
	// offset+0xff are in no word.
	offset rune
}

// Dictionary file layout (ICU's dictionarydata.h): a data header whose
// first two bytes give its size, then int32 indexes, the first being the
// trie's offset from the indexes.
const (
	dictIxTrieOffset = 0
	dictIxEnd        = 1
	dictIxTrieType   = 4
	dictIxTransform  = 5
	dictIndexes      = 8

	dictTrieUChars     = 1
	dictTrieTypeMask   = 7
	dictTrieHasValues  = 8
	dictTransformMask  = 0x7f000000
	dictTransformOff   = 0x1000000
	dictTransformDelta = 0x1fffff
)

// The dictionaries are decoded when first needed, once per process.
var (
	cjDictionary      = sync.OnceValues(func() (*dictionary, error) { return loadDictionary(cjDictGz, cjDictSum) })
	thaiDictionary    = sync.OnceValues(func() (*dictionary, error) { return loadDictionary(thaiDictGz, thaiDictSum) })
	laoDictionary     = sync.OnceValues(func() (*dictionary, error) { return loadDictionary(laoDictGz, laoDictSum) })
	burmeseDictionary = sync.OnceValues(func() (*dictionary, error) { return loadDictionary(burmeseDictGz, burmeseDictSum) })
	khmerDictionary   = sync.OnceValues(func() (*dictionary, error) { return loadDictionary(khmerDictGz, khmerDictSum) })
)

// maxDictBytes bounds a decoded dictionary (all are fixed data; the bound
// only keeps a damaged build from decoding without end).
const maxDictBytes = 8 << 20

func loadDictionary(gz64, sum string) (*dictionary, error) {
	z, err := base64.StdEncoding.DecodeString(gz64)
	if err != nil {
		return nil, err
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(r, maxDictBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxDictBytes {
		return nil, errors.New("intl: dictionary too large")
	}
	h := sha256.Sum256(b)
	if hex.EncodeToString(h[:]) != sum {
		return nil, errors.New("intl: dictionary damaged")
	}
	return parseDictionary(b)
}

// parseDictionary reads a .dict file's indexes and takes its trie.
func parseDictionary(b []byte) (*dictionary, error) {
	if len(b) < 4 || b[2] != 0xda || b[3] != 0x27 {
		return nil, errors.New("intl: not an ICU data file")
	}
	h := int(binary.LittleEndian.Uint16(b))
	if h+4*dictIndexes > len(b) {
		return nil, errors.New("intl: truncated dictionary")
	}
	ix := func(i int) int { return int(int32(binary.LittleEndian.Uint32(b[h+4*i:]))) }
	start, end := ix(dictIxTrieOffset), ix(dictIxEnd)
	if start < 4*dictIndexes || end < start || h+end > len(b) {
		return nil, errors.New("intl: bad dictionary offsets")
	}
	trie := b[h+start : h+end]
	typ, tr := ix(dictIxTrieType), ix(dictIxTransform)
	d := &dictionary{hasValues: typ&dictTrieHasValues != 0}
	if typ&dictTrieTypeMask == dictTrieUChars {
		d.units = make([]uint16, len(trie)/2)
		for i := range d.units {
			d.units[i] = binary.LittleEndian.Uint16(trie[2*i:])
		}
		return d, nil
	}
	if tr&dictTransformMask != dictTransformOff {
		return nil, errors.New("intl: unknown dictionary transform")
	}
	d.bytes, d.offset = trie, rune(tr&dictTransformDelta)
	return d, nil
}
