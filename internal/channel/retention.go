package channel

import "time"

// DefaultAckedRetention is how long a human-channel item is kept after its
// recipient acked it (a coordination message leaves its inbox at its ack
// already): the limits table's acked_retention.
const DefaultAckedRetention = 7 * 24 * time.Hour
