# bench: a 1.5M-iteration CPython loop (integer arithmetic, a dict, str()).
n = 1500000
acc = 0
counts = {}
digits = 0
for i in range(n):
    acc = (acc * 31 + i) % 1000003
    k = i & 255
    counts[k] = counts.get(k, 0) + 1
    if i % 1000 == 0:
        digits += len(str(acc))
print(acc, len(counts), counts[7], digits)
