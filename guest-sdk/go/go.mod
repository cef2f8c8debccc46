module github.com/airlockrt/airlock/guest-sdk/go

go 1.26
