// A C++ program with exceptions, RTTI, virtual calls and the standard
// library: unwinding through the emulated stack must work exactly.
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct Shape {
    virtual ~Shape() = default;
    virtual double area() const = 0;
};
struct Square : Shape {
    double s;
    explicit Square(double x) : s(x) {}
    double area() const override { return s * s; }
};
struct Circle : Shape {
    double r;
    explicit Circle(double x) : r(x) {}
    double area() const override { return 3.141592653589793 * r * r; }
};

static int depth(int n)
{
    if (n == 0)
        throw std::runtime_error("bottom reached");
    return depth(n - 1) + 1;
}

int main()
{
    std::vector<std::unique_ptr<Shape>> shapes;
    for (int i = 1; i <= 10; i++)
        shapes.push_back(i % 2 ? std::unique_ptr<Shape>(new Square(i)) : std::unique_ptr<Shape>(new Circle(i)));
    double total = 0;
    for (auto &s : shapes)
        total += s->area();
    std::printf("total area %.6f\n", total);
    std::map<std::string, int> words;
    for (const char *w : { "alpha", "beta", "alpha", "gamma", "beta", "alpha" })
        words[w]++;
    for (auto &kv : words)
        std::printf("%s=%d\n", kv.first.c_str(), kv.second);
    int caught = 0;
    for (int i = 0; i < 100; i++) {
        try {
            depth(i % 20);
        } catch (const std::exception &e) {
            caught++;
        }
    }
    try {
        std::vector<int> v(3);
        v.at(10) = 1;
    } catch (const std::out_of_range &e) {
        std::printf("out_of_range caught\n");
    }
    const Shape *s = shapes[1].get();
    std::printf("caught %d, dynamic_cast %s\n", caught, dynamic_cast<const Circle *>(s) ? "circle" : "other");
    return 0;
}
