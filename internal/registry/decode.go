package registry

// DecodePersona reads one persona record — AppendJSON's bytes on the fast
// path, any other JSON encoding of the record through encoding/json — so
// that a reader of records sent as AppendJSON writes them (the hub's
// client) decodes them as fast as the registry reads its own.
func DecodePersona(data []byte) (Persona, error) { return decodePersona(data) }
