extension ReceiverError: CustomStringConvertible {
    var description: String { message }
}
