def main() -> None:
    print("hello")
