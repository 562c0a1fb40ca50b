module hoist/bench/sink

go 1.19
