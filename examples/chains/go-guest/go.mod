module github.com/airlockrt/airlock/examples/chains/go-guest

go 1.26

require github.com/airlockrt/airlock/guest-sdk/go v0.0.0

replace github.com/airlockrt/airlock/guest-sdk/go => ../../../guest-sdk/go
