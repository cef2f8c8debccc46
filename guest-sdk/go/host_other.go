//go:build !wasip1

package airlock

func hostCall(string, []byte) ([]byte, error) { return nil, ErrNoHost }
func hostInput() ([]byte, error)              { return nil, ErrNoHost }
func hostOutput([]byte) error                 { return ErrNoHost }
func hostError(string)                        {}
func hostLog(string, string)                  {}
