// Package hubapi is the contract between a hub and its clients: where a hub
// listens (the home's socket), how a caller proves who it is (token files),
// the bodies of every request and answer, the change stream's records, and
// the error codes — each code one named error, so errors.Is holds across
// the wire. The server (internal/hub) and the client (internal/hubclient)
// both import it; neither imports the other.
package hubapi
