from polyregions.cli import command

command()
