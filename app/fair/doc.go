// Package fair is the rule by which every worker (webhook deliveries, broadcast email,
// knowledge processing, assistant runs, replies to contacts) chooses what to claim in one
// round: round-robin across organizations (or tenants) and their queues, within caps, so
// that one organization's backlog or hanging endpoint never starves another's. app names its
// types ClaimRoom and Due in the store's claim methods; app/claim runs the loop.
package fair
