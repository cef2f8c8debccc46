package mcp_test

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/airlockrt/airlock/invoker"
)

func TestZZDebug(t *testing.T) {
	e := newAPI(t, invoker.Policy{})
	cs := e.connect(t, keyAcme, &sdk.ClientOptions{})
	t.Logf("negotiated %s", cs.InitializeResult().ProtocolVersion)
}
