# A stand-in training script for tests: nothing runs it (the local stack has no nodes).
print("training")
