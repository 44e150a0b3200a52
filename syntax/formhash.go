package syntax

import "hash/maphash"

// The bytes HashForms writes for a list's parentheses, and the byte
// callers write for a placeholder (see HashForms's isPart); an atom is
// its kind (a FormKind, below these), its length and its text.
const (
	FormHashOpen  = 0xF0
	FormHashClose = 0xF1
	FormHashPart  = 0xFF
)

// HashForms writes to h an unambiguous encoding of the forms xs: their
// structure, each atom's kind and source text (src at the atom's span
// moved by shift bytes: a tree built from an older text whose forms now
// start shift bytes later), and nothing of their layout (white space and
// comments between atoms, offsets). Two lists of forms that differ only
// in layout write the same bytes. isPart, when not nil, reports the atoms
// written as a placeholder (FormHashPart) instead of their text.
func HashForms(h *maphash.Hash, src []byte, shift int, xs []*Form, isPart func(x *Form) bool) {
	for _, x := range xs {
		switch {
		case x.Kind == FormList:
			h.WriteByte(FormHashOpen)
			HashForms(h, src, shift, x.Items(), isPart)
			h.WriteByte(FormHashClose)
		case isPart != nil && isPart(x):
			h.WriteByte(FormHashPart)
		default:
			sp := x.Span()
			hashAtom(h, byte(x.Kind), src[sp.Start+shift:sp.End+shift])
		}
	}
}

func hashAtom(h *maphash.Hash, kind byte, t []byte) {
	var n [5]byte
	n[0] = kind
	n[1], n[2], n[3], n[4] = byte(len(t)>>24), byte(len(t)>>16), byte(len(t)>>8), byte(len(t))
	h.Write(n[:])
	h.Write(t)
}
