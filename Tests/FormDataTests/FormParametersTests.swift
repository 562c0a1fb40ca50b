import FormData
import Testing

@Suite struct FormParametersTests {
    @Test func keysAreSortedAtEveryLevel() {
        let pairs = FormParameters.pairs(["b": ["z": 1, "a": 2], "a": "first"])
        #expect(pairs.map(\.name) == ["a", "b[a]", "b[z]"])
    }

    @Test func scalarsAndNull() {
        let pairs = FormParameters.pairs(["i": -3, "d": 0.25, "t": true, "f": false, "n": nil, "s": "x y"])
        #expect(pairs.map { "\($0.name)=\($0.value)" } == ["d=0.25", "f=false", "i=-3", "n=", "s=x y", "t=true"])
    }

    @Test func emptyContainersProduceNothing() {
        #expect(FormParameters.pairs(["a": [], "b": [:]]).isEmpty)
    }

    @Test func arraysOfArraysAndDictionaries() {
        let pairs = FormParameters.pairs(["m": [[1, 2], ["k": "v"]]])
        #expect(pairs.map { "\($0.name)=\($0.value)" } == ["m[][]=1", "m[][]=2", "m[][k]=v"])
    }
}
