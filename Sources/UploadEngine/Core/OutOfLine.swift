/// An optional value kept in a heap box, made only while it is set: a
/// record whose value is nil (a tus driver, on a multipart task) holds 8
/// bytes for it, not the value's whole size. 10,000 queued tasks are 10,000
/// records.
@propertyWrapper
struct OutOfLine<Value> {
    private final class Box {
        var value: Value?
        init(_ value: Value?) { self.value = value }
    }

    private var box: Box?

    init(wrappedValue: Value?) {
        box = wrappedValue.map { Box($0) }
    }

    var wrappedValue: Value? {
        get { box?.value }
        set {
            guard let newValue else {
                box = nil
                return
            }
            if let box { box.value = newValue } else { box = Box(newValue) }
        }
        // In place: a driver's arrays stay uniquely referenced while it changes.
        _modify {
            if box == nil { box = Box(nil) }
            yield &box!.value
            if case .none = box!.value { box = nil }
        }
    }
}
