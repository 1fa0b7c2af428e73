from hookwright.cli import main

main()
