package hub

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	personasnap "github.com/virgo-hub/virgo-tui/internal/snapshot"
)

// personaSnapshot is GET /v1/snapshots/{ref...} (operators): the signed
// snapshot file of the generation ref names (usecase.Cases.Snapshot,
// signed with the installation's snapshot key).
func personaSnapshot(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	c, err := h.cases.Snapshot(r.Context(), r.PathValue("ref"))
	if err != nil {
		return err
	}
	key, err := personasnap.InstallationKey(h.cfg.Home.Dir)
	if err != nil {
		return err
	}
	b, err := personasnap.Encode(c, key)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", hubapi.SnapshotMediaType)
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	return nil
}

// restoreSnapshot is POST /v1/snapshots/restore (operators): the body is a
// snapshot file, verified here — against the installation's own key, its
// trusted-keys file and the keys the request's trust parameters name —
// before the restore use case runs; a file that fails writes nothing.
func restoreSnapshot(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	trusted, err := personasnap.Trusted(h.cfg.Home.Dir)
	if err != nil {
		return err
	}
	extra := r.URL.Query()["trust"]
	if len(extra) > personasnap.MaxTrusted {
		return hubapi.Errorf(hubapi.ErrBadQuery, "%d trust keys: at most %d", len(extra), personasnap.MaxTrusted)
	}
	for _, line := range extra {
		k, err := personasnap.ParsePublic(line)
		if err != nil {
			return hubapi.Errorf(hubapi.ErrBadQuery, "trust=%q: %v", line, err)
		}
		trusted = append(trusted, k)
	}
	if r.ContentLength > personasnap.MaxBytes {
		return fmt.Errorf("%w: the file is %d bytes, the limit is %d; nothing was read", personasnap.ErrTooLarge, r.ContentLength, personasnap.MaxBytes)
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != hubapi.SnapshotMediaType {
		return hubapi.Errorf(hubapi.ErrUnsupportedMediaType, "Content-Type %q: send the snapshot file as %s", r.Header.Get("Content-Type"), hubapi.SnapshotMediaType)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, personasnap.MaxBytes))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return personasnap.ErrTooLarge
	} else if err != nil {
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "request body could not be read: %v", err)
	}
	s, err := personasnap.Open(b, trusted)
	if err != nil {
		return err
	}
	ctx := r.Context()
	res, err := h.cases.Restore(ctx, s.Contents)
	if err != nil {
		return err
	}
	if err := h.Settle(ctx); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, hubapi.Restored(res))
	return nil
}

// keptSnapshots lists the snapshots the home keeps of the seats of ps: one
// directory read, then one per seat that has a directory.
func (h *Hub) keptSnapshots(ps []registry.Persona) ([]hubapi.KeptSnapshot, error) {
	es, err := os.ReadDir(personasnap.KeptDir(h.cfg.Home.Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for _, e := range es {
		dirs[e.Name()] = true
	}
	var out []hubapi.KeptSnapshot
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.Address] || !dirs[filepath.Base(personasnap.SeatDir(h.cfg.Home.Dir, p.Address))] {
			continue
		}
		seen[p.Address] = true
		ks, err := personasnap.KeptOf(h.cfg.Home.Dir, p.Address)
		if err != nil {
			return out, err
		}
		for _, k := range ks {
			out = append(out, hubapi.KeptSnapshot{Address: p.Address, Kept: k})
		}
	}
	return out, nil
}
