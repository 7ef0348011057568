package coord

// Fence is an instance fence: the number a runtime instance of a
// generation claimed when it connected. Each claim is one more than the
// last, so the newest instance holds the highest number and every older
// one is fenced out. A fence is not a secret against the generation itself
// (every instance holds the same token); it keeps a stale duplicate from
// acting. It is shown to the claiming instance only: never in a stamp, an
// answer for another persona, an export, the change stream or a log.
type Fence uint64

// NoFence is what a request that presents no fence carries.
const NoFence Fence = 0
