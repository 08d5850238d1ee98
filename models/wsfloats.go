package models

// Floats returns how many float64s the workspace's buffers hold (each is
// Cap samples long): a caller that evaluates large batches in blocks sizes
// its blocks by it (train.Objective).
func (ws *netWorkspace) Floats() int {
	f := len(ws.scratch) + len(ws.ga) + len(ws.gb)
	for i := range ws.outs {
		if i == 0 || !ws.net.fused[i-1] { // a fused pair shares one buffer
			f += len(ws.outs[i])
		}
		f += len(ws.aux[i])
	}
	return f
}
