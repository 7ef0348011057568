package boltstore

import (
	"io/fs"
	"syscall"
)

// stateOf is the clean-close state of a database file whose live meta is m.
func stateOf(fi fs.FileInfo, m boltMeta) (cleanState, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return cleanState{}, false
	}
	// Dev and Ino are uint64 on amd64 and arm64, narrower on some others.
	return cleanState{
		Format:  cleanCloseFormat,
		Dev:     uint64(st.Dev),
		Ino:     uint64(st.Ino),
		Size:    fi.Size(),
		MtimeNs: st.Mtim.Nano(),
		CtimeNs: st.Ctim.Nano(),
		TxID:    m.txid,
		MetaSum: m.sum,
	}, true
}

// ctimeOf is a file's change time in nanoseconds.
func ctimeOf(fi fs.FileInfo) (int64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ctim.Nano(), true
}
