// Package coord owns addressed coordination between personas: messages
// sent to a seat and delivered to whichever generation holds it until one
// acknowledges them, and instance fences, which keep a stale duplicate of a
// generation (an older runtime still running after a newer one connected)
// from acknowledging, writing or beating.
//
// A message is addressed to a seat, never to a generation: it waits in the
// seat's inbox until acked, so what a retired generation had not acked is
// what the seat's next generation finds. Admission of both ends (an active
// sender, a recipient seat with an active holder) is the caller's condition
// on the registry's seat records, joined to the plans made here, so a
// retirement committed first makes a send conflict and be decided again.
//
// The package holds the values and their rules; coord/switchboard stores
// them. Every change is a store.Plan: the use case joins it with the
// admission and fence conditions and its audit entry and commits one
// transaction.
package coord
