package hub

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

func apiErrorf(status int, code, format string, args ...any) *hubapi.APIError {
	return &hubapi.APIError{Status: status, Code: code, Msg: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, err error) {
	ae := hubapi.FromError(err)
	writeJSON(w, ae.Status, ae)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"cannot encode the answer","code":"internal"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
