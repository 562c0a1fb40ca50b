/// Which bytes go next, planned ahead so the engine can hash a chunk
/// while the one before it is on the wire.
extension TusUploadStateMachine {
    /// The chunk that `next()` sends after `chunk` if the server keeps all
    /// of it: the engine hashes that one while `chunk` is on the wire.
    func chunk(following chunk: Range<Int64>) -> Range<Int64>? {
        // Before the creation's answer there is no upload yet: its length is the file's.
        guard !isStream else { return nil }
        let length = upload?.knownLength ?? uploadLength
        let following = chunk.upperBound..<min(chunk.upperBound + followingChunkSize, base + length)
        return following.isEmpty ? nil : following
    }

    /// The chunk after `chunk`, and once the size has settled the one after
    /// that (its size is only planned when `chunk` is answered): hashed two
    /// ahead, a chunk's hash can use any spare moment of the transfer of two.
    func chunks(following chunk: Range<Int64>) -> [Range<Int64>] {
        guard let next = self.chunk(following: chunk) else { return [] }
        guard upload != nil, followingChunkSize == chunkSize, let after = self.chunk(following: next) else {
            return [next]
        }
        return [next, after]
    }
}
