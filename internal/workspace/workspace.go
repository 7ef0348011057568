// Package workspace executes a persona's workspace file tools
// (workspace_list, workspace_stat, workspace_hash, workspace_read,
// workspace_write) on real files, after the hub has allowed the call. It is
// the persona runtime's side of the spec's "workspace listing, metadata,
// hash, and paginated/ranged reads" and "atomic writes to the mutable paths
// declared in its own workspace binding".
//
// Every path is resolved on disk first (confirm.NormalizePathBelow): a
// symbolic link that leads out of the tree is refused before anything is
// opened, and the caller asks the hub about the path where the operation
// really lands. A link inside the tree is allowed that way: it is resolved,
// and decided by the file it reaches. Bytes are then read only through
// openBytes, which opens that resolved path following no link at all, so a
// link planted between the decision and the open is refused, and judges
// what it opened (regular, one name, size, the secret table). Listings,
// stats and writes go through an os.Root, which cannot leave the tree.
package workspace

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// Limits of the executors. A read page is bounded by confirm.MaxReadLength.
const (
	// MaxWrite is the largest file workspace_write writes: the tool
	// table's bound on its content argument.
	MaxWrite = tools.MaxContent
	// MaxListPage is the most entries one workspace_list page returns: the
	// bound of every list's page.
	MaxListPage = paging.MaxLimit
	// DefaultListPage is a page's size when the caller names none.
	DefaultListPage = paging.DefaultLimit
)

// Named errors of the executors; each refusal wraps one.
var (
	// ErrNotMutable: a write to a path outside the mutable paths.
	ErrNotMutable = errors.New("path is not among the workspace's mutable paths")
	// ErrTooLarge: a write over MaxWrite.
	ErrTooLarge = errors.New("content is over the workspace write limit")
	// ErrNotFile: a read, hash or write of something that is not a regular file.
	ErrNotFile = errors.New("not a regular file")
	// ErrNotDir: a listing of something that is not a directory.
	ErrNotDir = errors.New("not a directory")
	// ErrNotFound: no file or directory at the path.
	ErrNotFound = errors.New("no such file or directory in the workspace")
	// ErrExists: a create of a path that exists (use overwrite).
	ErrExists = errors.New("file exists; write with overwrite")
	// ErrBadCursor: a listing continuation that is not a name in the directory's order.
	ErrBadCursor = errors.New("list continuation is not an entry name")
	// ErrNoRoot: the workspace directory is missing or not a directory.
	ErrNoRoot = errors.New("workspace directory is missing")
)

// Root is one directory tree a persona's file tools act in: its own
// workspace, or its bound repository worktree. It is safe for concurrent use.
type Root struct {
	dir string
	// real is dir with its links resolved, once, at Open: a path is
	// resolved below it (Resolve).
	real    string
	mutable *confirm.PathSet
	fs      *os.Root
	// top is the root directory itself, open, below which openBytes opens.
	top *os.File
}

// Open opens the tree at dir. mutable are the stamp's mutable-path patterns
// that workspace_write may touch; nil allows writes anywhere in the tree (a
// bound repository, whose writes the hub allows whole).
func Open(dir string, mutable []string) (*Root, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s: create it (owner-private, 0700) or fix the binding", ErrNoRoot, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNoRoot, dir, err)
	}
	r := &Root{dir: dir, real: real}
	if mutable != nil {
		set, err := confirm.CompilePaths(mutable)
		if err != nil {
			return nil, fmt.Errorf("workspace %s: %w", dir, err)
		}
		r.mutable = &set
	}
	if r.fs, err = os.OpenRoot(dir); err != nil {
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	if r.top, err = r.fs.Open("."); err != nil {
		r.fs.Close()
		return nil, fmt.Errorf("workspace %s: %w", dir, err)
	}
	return r, nil
}

// Dir is the tree's directory on disk.
func (r *Root) Dir() string { return r.dir }

// Close releases the tree's directory handles.
func (r *Root) Close() error { return errors.Join(r.top.Close(), r.fs.Close()) }

// Resolve normalizes a persona's path and resolves it on disk: it returns
// the workspace-relative path where an operation on p really lands, or
// refuses p (a trick NormalizePath names, or confirm.ErrSymlinkEscape for a
// link leading out). Authorize that path, not p.
func (r *Root) Resolve(p string) (string, error) {
	return confirm.NormalizePathBelow(r.real, p)
}

// Entry is one line of a listing or a stat.
type Entry struct {
	// Path is workspace-relative.
	Path string `json:"path"`
	// Type is "file", "dir", "symlink" or "other".
	Type     string    `json:"type"`
	Size     int64     `json:"size"`
	Mode     string    `json:"mode"`
	Modified time.Time `json:"modified"`
}

func entryOf(p string, fi fs.FileInfo) Entry {
	t := "other"
	switch m := fi.Mode(); {
	case m.IsRegular():
		t = "file"
	case m.IsDir():
		t = "dir"
	case m&fs.ModeSymlink != 0:
		t = "symlink"
	}
	return Entry{Path: p, Type: t, Size: fi.Size(), Mode: fi.Mode().Perm().String(), Modified: fi.ModTime().UTC()}
}

// resolve is Resolve with the error wrapped for the executor.
func (r *Root) resolve(op, p string) (string, error) {
	rel, err := r.Resolve(p)
	if err != nil {
		return "", fmt.Errorf("%s %q: %w", op, p, err)
	}
	return rel, nil
}

// notFound turns the file system's not-exist into ErrNotFound.
func notFound(op, p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s %q: %w", op, p, ErrNotFound)
	}
	return fmt.Errorf("%s %q: %w", op, p, err)
}

// Stat describes the file or directory at p.
func (r *Root) Stat(p string) (Entry, error) {
	rel, err := r.resolve("stat", p)
	if err != nil {
		return Entry{}, err
	}
	fi, err := r.fs.Stat(rel)
	if err != nil {
		return Entry{}, notFound("stat", rel, err)
	}
	return entryOf(rel, fi), nil
}

// Listing is one page of a directory, in name order.
type Listing struct {
	Path    string  `json:"path"`
	Entries []Entry `json:"entries"`
	// Next continues the listing after the last entry; empty at the end.
	Next string `json:"next,omitempty"`
}

// List returns up to limit entries of the directory at p (the workspace
// itself when p is "" or "."), in name order, after the entry named after.
// Links are listed as links, never followed.
func (r *Root) List(p, after string, limit int) (Listing, error) {
	rel := "."
	if p != "" && p != "." {
		var err error
		if rel, err = r.resolve("list", p); err != nil {
			return Listing{}, err
		}
	}
	if after != "" && (strings.ContainsRune(after, '/') || after == "." || after == "..") {
		return Listing{}, fmt.Errorf("list %q after %q: %w", rel, after, ErrBadCursor)
	}
	if limit <= 0 {
		limit = DefaultListPage
	}
	limit = min(limit, MaxListPage)
	d, err := r.fs.Open(rel)
	if err != nil {
		return Listing{}, notFound("list", rel, err)
	}
	defer d.Close()
	if fi, err := d.Stat(); err != nil || !fi.IsDir() {
		return Listing{}, fmt.Errorf("list %q: %w", rel, ErrNotDir)
	}
	names, err := d.Readdirnames(-1)
	if err != nil {
		return Listing{}, fmt.Errorf("list %q: %w", rel, err)
	}
	slices.Sort(names)
	start, _ := slices.BinarySearch(names, after)
	if after != "" && start < len(names) && names[start] == after {
		start++
	}
	out := Listing{Path: rel, Entries: make([]Entry, 0, min(limit, len(names)-start))}
	for i, name := range names[start:] {
		if len(out.Entries) == limit {
			out.Next = names[start+i-1]
			break
		}
		child := name
		if rel != "." {
			child = rel + "/" + name
		}
		fi, err := r.fs.Lstat(child)
		if err != nil {
			continue // removed since the directory was read
		}
		out.Entries = append(out.Entries, entryOf(child, fi))
	}
	return out, nil
}

// Digest is a file's sha256.
type Digest struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// SHA256 is "sha256:" and the hex digest.
	SHA256 string `json:"sha256"`
}

// Hash returns the sha256 of the file at p (at most MaxHashed bytes), read
// in a stream. Secret material has no digest: it is refused
// (confirm.ErrSecretMaterial).
func (r *Root) Hash(p string) (Digest, error) {
	rel, err := r.resolve("hash", p)
	if err != nil {
		return Digest{}, err
	}
	return r.digest(rel, true)
}

// digest is the sha256 of the file at the resolved path rel; judge asks
// the secret table first.
func (r *Root) digest(rel string, judge bool) (Digest, error) {
	o, err := r.openBytes("hash", rel, MaxHashed, judge)
	if err != nil {
		return Digest{}, err
	}
	defer o.f.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(o.f, MaxHashed))
	if err != nil {
		return Digest{}, fmt.Errorf("hash %q: %w", rel, err)
	}
	return Digest{Path: rel, Size: n, SHA256: "sha256:" + hex.EncodeToString(h.Sum(nil))}, nil
}

// Page is one ranged read with its continuation metadata.
type Page struct {
	Path string `json:"path"`
	// Size is the file's size when read.
	Size int64 `json:"size"`
	confirm.Range
	Data []byte `json:"-"`
}

// Read returns at most length bytes of the file at p from offset (length 0
// or over confirm.MaxReadLength reads confirm.MaxReadLength); the page says
// where the next one starts and whether it reached the end. Secret
// material is refused (confirm.ErrSecretMaterial), judged on the file
// opened.
func (r *Root) Read(p string, offset, length int64) (Page, error) {
	rel, err := r.resolve("read", p)
	if err != nil {
		return Page{}, err
	}
	o, err := r.openBytes("read", rel, -1, true)
	if err != nil {
		return Page{}, err
	}
	defer o.f.Close()
	f, fi := o.f, o.fi
	rg, err := confirm.ReadRange(fi.Size(), offset, length)
	if err != nil {
		return Page{}, fmt.Errorf("read %q: %w", rel, err)
	}
	buf := make([]byte, rg.Length)
	n, err := f.ReadAt(buf, rg.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return Page{}, fmt.Errorf("read %q: %w", rel, err)
	}
	if int64(n) < rg.Length { // the file shrank since the stat
		rg.Length, rg.NextOffset, rg.EOF = int64(n), rg.Offset+int64(n), true
	}
	return Page{Path: rel, Size: fi.Size(), Range: rg, Data: buf[:n]}, nil
}

// WriteMode says whether a write may create a file, replace one, or both.
type WriteMode uint8

// The write modes.
const (
	// CreateOrReplace writes whether or not the file exists.
	CreateOrReplace WriteMode = iota
	// CreateOnly refuses an existing file with ErrExists.
	CreateOnly
)

// Written is the result of a write.
type Written struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Created is true when the file did not exist before.
	Created bool   `json:"created"`
	SHA256  string `json:"sha256"`
}

// Exists reports whether a file is at the resolved path rel, so that a
// caller can name a write's shape (write:create or write:overwrite).
func (r *Root) Exists(rel string) bool {
	_, err := r.fs.Lstat(rel)
	return err == nil
}

// Write replaces the file at p with data atomically (a temporary file in
// the same directory, synced, then renamed over it), creating missing
// parent directories 0700 and the file 0600. Only a mutable path is
// written, at most MaxWrite bytes.
func (r *Root) Write(p string, data []byte, mode WriteMode) (Written, error) {
	rel, err := r.resolve("write", p)
	if err != nil {
		return Written{}, err
	}
	if r.mutable != nil && !r.mutable.Match(rel) {
		return Written{}, fmt.Errorf("write %q: %w", rel, ErrNotMutable)
	}
	if len(data) > MaxWrite {
		return Written{}, fmt.Errorf("write %q: %w: %d bytes, at most %d", rel, ErrTooLarge, len(data), MaxWrite)
	}
	fi, err := r.fs.Lstat(rel)
	switch {
	case err == nil && mode == CreateOnly:
		return Written{}, fmt.Errorf("write %q: %w", rel, ErrExists)
	case err == nil && !fi.Mode().IsRegular():
		return Written{}, fmt.Errorf("write %q: %w", rel, ErrNotFile)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return Written{}, fmt.Errorf("write %q: %w", rel, err)
	}
	created := err != nil
	if dir := path.Dir(rel); dir != "." {
		if err := r.fs.MkdirAll(dir, 0o700); err != nil {
			return Written{}, fmt.Errorf("write %q: %w", rel, err)
		}
	}
	tmp, name, err := r.tempFile(rel)
	if err != nil {
		return Written{}, fmt.Errorf("write %q: %w", rel, err)
	}
	_, err = tmp.Write(data)
	err = cmp.Or(err, tmp.Sync(), tmp.Close())
	if err == nil {
		err = r.fs.Rename(name, rel)
	}
	if err != nil {
		r.fs.Remove(name)
		return Written{}, fmt.Errorf("write %q: %w", rel, err)
	}
	sum := sha256.Sum256(data)
	return Written{Path: rel, Size: int64(len(data)), Created: created, SHA256: "sha256:" + hex.EncodeToString(sum[:])}, nil
}

// tempFile creates a new private file beside rel, named so that a listing
// shows what it is for, and returns it with its root-relative name.
func (r *Root) tempFile(rel string) (*os.File, string, error) {
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s.virgo-write-%d-%d", rel, os.Getpid(), time.Now().UnixNano()+int64(i))
		f, err := r.fs.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && i < 8 {
			continue
		}
		return f, name, err
	}
}

// HomeDir is where a persona's own workspace tree lives in an installation
// home: <home>/workspaces/<address>. The stamp's workspace root is an
// identifier, not a host path; the runtime and the hub both map it here, so
// the files a runtime acts on are the files the hub judged. A bound repository is its own Root, at the
// repository's directory.
func HomeDir(home, address string) string {
	return filepath.Join(home, "workspaces", filepath.FromSlash(address))
}

// Removed is the result of a removal.
type Removed struct {
	Path string `json:"path"`
	// SHA256 is the digest of what was removed, so that the caller can
	// tell what it was; empty for secret material (confirm.Egress), whose
	// digest leaves the workspace no more than its bytes do.
	SHA256 string `json:"sha256,omitempty"`
	Size   int64  `json:"size"`
}

// Remove deletes the file at p, a mutable path (a directory or a link is
// refused, never followed). The hub confirms removing a secret with the
// bound human; the answer then names no digest.
func (r *Root) Remove(p string) (Removed, error) {
	rel, err := r.resolve("remove", p)
	if err != nil {
		return Removed{}, err
	}
	if r.mutable != nil && !r.mutable.Match(rel) {
		return Removed{}, fmt.Errorf("remove %q: %w", rel, ErrNotMutable)
	}
	d, err := r.digest(rel, false)
	if err != nil {
		return Removed{}, err
	}
	if err := r.fs.Remove(rel); err != nil {
		return Removed{}, notFound("remove", rel, err)
	}
	if confirm.Egress(rel).Verdict == confirm.Deny {
		d.SHA256 = ""
	}
	return Removed{Path: rel, SHA256: d.SHA256, Size: d.Size}, nil
}
