package knowledge

import "os"

// childOwnerEnv marks every child an Extractor with an Owner starts, so that the next server
// on the same database can find the children a killed one left behind (SweepLeftovers).
const childOwnerEnv = "WSAPI_EXTRACT_OWNER"

// SweepLeftovers kills the extraction children marked with this extractor's Owner and
// answers how many there were. Call it once at start, before the processor runs: the server
// holds its database's lock then, so no other live server shares the owner and every marked
// child is a leftover of a dead one (one started before Pdeathsig, or on a system without
// it). Without an Owner it does nothing. It finds children through /proc (Linux only).
func (x *Extractor) SweepLeftovers() (int, error) {
	if x.Owner == "" {
		return 0, nil
	}
	n := 0
	for _, pid := range childrenOf(x.Owner) {
		if err := killChild(pid); err != nil && !os.IsNotExist(err) {
			return n, err
		}
		n++
	}
	return n, nil
}

// ownerEnv is the child's marker variable, none without an Owner.
func (x *Extractor) ownerEnv() []string {
	if x.Owner == "" {
		return nil
	}
	return []string{childOwnerEnv + "=" + x.Owner}
}
