// Package queue is the stored book of package confirm: the durable queue of
// confirmations routed to their authority, the prompt registry of learned
// exact decisions, the reaction outcomes, the records of what an approved
// confirmation carried out, and the audit log. Every state change is planned
// as one compare-and-swap store.Plan that the use case commits with its own
// writes; the rules it applies (authorization, who may decide, fingerprints,
// boundaries) are confirm's, which reads and writes no store.
package queue
