package hubapi

// StoreCheck is the answer of GET /v1/store/check: the database the hub
// serves and every problem its full check found (none: intact).
type StoreCheck struct {
	Path     string   `json:"path"`
	Problems []string `json:"problems"`
}
